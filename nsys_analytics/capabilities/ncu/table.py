"""Turn an `Analysis` into a `Result` for the renderers: units as ncu prints them, or base units.

`units="auto"` picks one unit per column the way ncu's raw page does (`duration_ns` 12,416 ->
`duration_us` 12.4); `units="base"` keeps base units (ncu's `--print-units base`). A column named
after its unit (`duration_ns`, `shared_mem_per_block_bytes`, `sm_frequency_hz`) is renamed with the
unit shown; a column named after a metric keeps its name and shows the unit in its header.
"""

from __future__ import annotations

import math

from pandas import NA as _NA

from ...core.result import Result
from .analysis import Analysis
from .units import display_unit

UNITS = ("auto", "base")
_SUFFIX_OF_BASE = {"ns": "_ns", "byte": "_bytes", "hz": "_hz"}


def to_result(analysis: Analysis, units: str = "auto") -> Result:
    frame = analysis.frame
    columns, headers, scales = [], [], {}
    for column in frame.columns:
        name, header, divisor = column, column, 1.0
        if column in analysis.value_columns:
            base = analysis.units.get(column, "")
            shown, divisor = display_unit(base, _numbers(frame[column])) if units == "auto" else (base, 1.0)
            name = _renamed(column, base, shown)
            header = f"{column} ({shown})" if column in analysis.raw_metric_columns and shown else name
        columns.append(name)
        headers.append(header)
        scales[column] = divisor
    rows = [tuple(_cell(v, scales[c]) for c, v in zip(frame.columns, row)) for row in frame.itertuples(index=False)]
    return Result(columns, rows, notes=list(analysis.notes), headers=headers, key_columns=_keys(analysis, columns),
                  decimals=_decimals(columns, rows))


def _decimals(columns: list[str], rows: list[tuple]) -> dict[str, int]:
    """Decimals a table shows per float column: none where every value is whole (registers, cycles), two where all
    are below 10 (waves per SM 0.03 read 0.0), else the usual one."""
    out = {}
    for i, column in enumerate(columns):
        values = [r[i] for r in rows if isinstance(r[i], float) and math.isfinite(r[i])]
        if not values:
            continue
        if all(v.is_integer() for v in values):
            out[column] = 0
        elif max(abs(v) for v in values) < 10:
            out[column] = 2
    return out


def _keys(analysis: Analysis, columns: list[str]) -> tuple[str, ...]:
    """What a narrow terminal keeps longest: the kernel, then the metrics asked for, duration first (ids, NVTX
    ranges and launch shapes go first)."""
    shown = dict(zip(analysis.frame.columns, columns))
    values = [shown[c] for c in analysis.value_columns if c in shown]
    values.sort(key=lambda c: not c.startswith(("duration", "nsys_duration")))
    return tuple(c for c in ("kernel", *values) if c in columns)


FILE_FORMATS = ("csv", "json", "parquet")


def for_format(analysis: Analysis, fmt: str, units: str | None = None) -> Result:
    """The Result that `fmt` shows. Files for programs (CSV, JSON, Parquet) default to base units with every digit:
    `duration_ns` whatever the magnitudes, not a column renamed by them and rounded to 0.1 us; tables to ncu's."""
    exact = fmt in FILE_FORMATS
    result = to_result(analysis, units or ("base" if exact else "auto"))
    result.exact = exact
    return result


def _renamed(column: str, base: str, shown: str) -> str:
    """duration_ns shown in us -> duration_us; shared_mem_per_block_bytes in Kbyte/block -> ..._kbytes."""
    token = base.split("/")[0]
    suffix = _SUFFIX_OF_BASE.get(token)
    if not suffix or not column.endswith(suffix) or shown == base:
        return column
    shown_token = shown.split("/")[0].lower()
    return column[: -len(suffix)] + "_" + (shown_token + "s" if shown_token.endswith("byte") else shown_token)


def _numbers(series) -> list[float]:
    return [v for v in series if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)]



def _cell(value, divisor: float):
    """Plain Python values: NaN -> None, whole floats of integer columns stay floats (renderers round)."""
    if value is None or value is _NA:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) else value / divisor
    if hasattr(value, "item"):  # numpy scalar
        return _cell(value.item(), divisor)
    if isinstance(value, int) and not isinstance(value, bool) and divisor != 1.0:
        return value / divisor
    return value
