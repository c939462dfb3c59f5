"""Compare a report's tables with ncu's own `ncu -i R --csv --page raw` output, cell by cell.

Each CSV cell is converted to base units with the CSV's unit row and compared with `ncu_metrics`
within half a unit of the last digit ncu printed; text cells must be equal; ncu's `nan` and `no data`
are metrics without a value. Optionally the unit row itself is checked against the display unit that
`units.display_unit` picks for the column. Used by the golden tests and bench/bench_ncu.py.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .load_csv import _number
from .units import display_unit, to_base

if TYPE_CHECKING:
    from .report import NcuReport

FIRST_METRIC_COLUMN = 13  # ID, process, host, NVTX (2), kernel name, context, stream, block, grid, device, CC
NO_VALUE = ("nan", "no data")
# ncu's CSV prints no unit for this metric; the report says 'request'.
KNOWN_UNIT_DIFFERENCES = frozenset({"idc__requests.sum"})


@dataclass
class Comparison:
    cells: int = 0  # non-empty metric cells in the CSV
    numbers: int = 0  # numeric cells equal
    texts: int = 0  # text cells equal
    no_values: int = 0  # `nan` / `no data` cells matched by a metric without value
    display_units: int = 0  # columns whose unit row equals our display unit
    mismatches: list[tuple] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return self.numbers + self.texts + self.no_values


def compare(report: NcuReport, csv_path: Path, check_display_units: bool = True) -> Comparison:
    """Every metric cell of the raw-page CSV against the report's ncu_metrics."""
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    header, units, body = rows[0], rows[1], rows[2:]
    ours = {(k, m): (v, t, u) for k, m, v, t, u in
            report.sql("SELECT kernel_id, metric, value, text, unit FROM ncu_metrics").rows}
    result = Comparison()
    columns: dict[int, list[float]] = {}
    for row in body:
        kernel_id = int(row[0])
        for i in range(FIRST_METRIC_COLUMN, len(header)):
            if row[i] == "":
                continue
            result.cells += 1
            got = ours.get((kernel_id, header[i]))
            if got is None:
                result.mismatches.append(("missing", kernel_id, header[i]))
                continue
            _compare_cell(result, kernel_id, header[i], row[i], units[i], got)
            if got[0] is not None:
                columns.setdefault(i, []).append(got[0])
    if check_display_units:
        _compare_units(result, header, units, columns)
    return result


def _compare_cell(result: Comparison, kernel_id: int, metric: str, cell: str, unit: str, got: tuple) -> None:
    value, text, our_unit = got
    base, factor = to_base(unit)
    if base != our_unit and metric not in KNOWN_UNIT_DIFFERENCES:
        result.mismatches.append(("unit", kernel_id, metric, unit, our_unit))
    number = _number(cell)
    if cell in NO_VALUE:
        ok = value is None and text is None
        result.no_values += ok
    elif number is None:
        ok = text == cell
        result.texts += ok
    else:
        decimals = len(cell.split(".")[1]) if "." in cell else 0
        tolerance = 0.5 * 10 ** -decimals * factor + 1e-12 * abs(number * factor)
        ok = value is not None and math.isclose(value, number * factor, rel_tol=0.0, abs_tol=tolerance)
        result.numbers += ok
    if not ok:
        result.mismatches.append(("value", kernel_id, metric, cell, unit, value, text))


def _compare_units(result: Comparison, header: list[str], units: list[str], columns: dict[int, list[float]]) -> None:
    for i, values in columns.items():
        shown, _ = display_unit(to_base(units[i])[0], values)
        if shown == units[i]:
            result.display_units += 1
        else:
            result.mismatches.append(("display unit", header[i], units[i], shown))
