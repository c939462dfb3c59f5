"""Per-kernel tables and nsight-python-style analysis of an ncu report, as DataFrames (no I/O, no printing).

Stages, in order: pick metrics -> one row per result -> annotation and configuration from NVTX range
names -> combine the kernels of one range instance (`combine`) -> derived metrics (`derive`) -> group
by kernel or annotation+configuration (`group_by`, `agg`) -> ratios or speedups against a baseline
annotation (`normalize_against`). Values stay in base units; `table.to_result` converts for display.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.errors import UsageError
from . import config, expr
from .frames import kernel_frame
from .metrics import closest, headline_columns, resolve_metrics

if TYPE_CHECKING:
    import pandas as pd

    from .report import NcuReport

GROUP_BY = ("none", "kernel", "nvtx")
AGGREGATIONS = ("sum", "mean", "max", "min")
COMBINE = ("sum", "mean", "max")
NO_RANGE = "(no NVTX range)"
DerivedSpec = str | Callable[[Mapping[str, Any]], float]


@dataclass
class Options:
    """What to compute. `derive` maps a name to an expression (text) or to a function of one row."""

    metrics: list[str] | None = None  # metric names or ncu_summary column names; None = the headline columns
    group_by: str = "none"
    agg: str = "mean"
    derive: dict[str, DerivedSpec] = field(default_factory=dict)
    combine: str | None = None
    normalize_against: str | None = None
    speedup: bool = False  # with normalize_against: baseline / value instead of value / baseline
    config_regex: str | None = None
    match: str | None = None  # only kernels whose name matches this regular expression


@dataclass
class Analysis:
    """The table and what describes its columns."""

    frame: pd.DataFrame
    units: dict[str, str]  # base unit of each value column ('' = a count or ratio)
    value_columns: list[str]  # metric and derived columns, in display order
    params: list[str]
    notes: list[str] = field(default_factory=list)
    raw_metric_columns: set[str] = field(default_factory=set)  # columns named after a metric
    show_params: bool = False  # per-kernel rows show the parameters (when derive or combine used them)


def analyze(report: NcuReport, options: Options) -> Analysis:
    """The table `options` ask for (see the module docstring)."""
    _check_options(options)
    units = report.metric_units()
    columns, metrics = _metric_columns(options.metrics, units)
    derived = _parse_derived(options.derive)
    hidden = _hidden_metrics(derived, columns, metrics, units)
    frame = kernel_frame(report, metrics + hidden, columns + hidden)
    frame = _filter(frame, options.match)
    nvtx = report.frame("SELECT kernel_id, domain, kind, level, name FROM ncu_nvtx")
    params = config.add_configs(frame, nvtx, config.compile_pattern(options.config_regex))
    value_units = {c: units.get(m, "") for c, m in zip(columns + hidden, metrics + hidden)}
    analysis = Analysis(frame, value_units, list(columns), params,
                        raw_metric_columns={c for c, m in zip(columns, metrics) if c == m})
    analysis.show_params = bool(options.combine or options.derive)
    if options.combine:
        _combine(analysis, options.combine, hidden)
    _derive(analysis, derived, dict(zip(metrics + hidden, columns + hidden)), hidden)
    _group(analysis, options.group_by, options.agg)
    if options.normalize_against:
        _normalize(analysis, options.normalize_against, options.speedup)
    return analysis


def _check_options(options: Options) -> None:
    for value, allowed, what in ((options.group_by, GROUP_BY, "group_by"), (options.agg, AGGREGATIONS, "agg"),
                                 (options.combine or "sum", COMBINE, "combine")):
        if value not in allowed:
            raise UsageError(f"{what} {value!r}: use one of {', '.join(allowed)}")
    if options.normalize_against and options.group_by != "nvtx":
        raise UsageError("--normalize-against compares annotations: use it with --group-by nvtx")


def _metric_columns(requested: list[str] | None, units: dict[str, str]) -> tuple[list[str], list[str]]:
    """(column names, metric names): the headline columns the report has, or the requested metrics."""
    if requested is None:
        present = [h for h in headline_columns() if h.metric in units]
        return [h.column for h in present], [h.metric for h in present]
    aliases = {h.metric: h.column for h in headline_columns()}
    metrics = resolve_metrics(requested, units)
    named = {n.strip() for n in requested}
    return [aliases[m] if aliases.get(m) in named else m for m in metrics], metrics


def _parse_derived(derive: Mapping[str, DerivedSpec]) -> list[tuple[str, DerivedSpec | expr.Derived]]:
    parsed = []
    for name, spec in derive.items():
        parsed.append((name, expr.compile_expression(name, spec) if isinstance(spec, str) else spec))
    return parsed


def _hidden_metrics(derived, columns: list[str], metrics: list[str], units: dict[str, str]) -> list[str]:
    """Metrics that expressions name but the table does not show: fetched, used, then dropped."""
    shown = set(columns) | set(metrics)
    wanted = [n for _, d in derived if isinstance(d, expr.Derived) for n in d.names]
    return list(dict.fromkeys(n for n in wanted if n in units and n not in shown))


def _filter(frame: pd.DataFrame, match: str | None) -> pd.DataFrame:
    if not match:
        return frame
    try:
        pattern = re.compile(match)
    except re.error as e:
        raise UsageError(f"--match {match!r}: not a regular expression ({e})") from e
    keep = frame["name"].fillna("").str.contains(pattern) | frame["kernel"].fillna("").str.contains(pattern)
    if not keep.any():
        raise UsageError(f"--match {match!r}: no kernel name matches")
    return frame[keep].reset_index(drop=True)


def _combine(analysis: Analysis, how: str, hidden: list[str]) -> None:
    """One row per range instance: consecutive results with the same NVTX stack, values combined with `how`.

    Kernels outside any range stay one row each."""
    frame = analysis.frame
    path = frame["nvtx_path"]
    instance = (path.isna() | (path != path.shift())).cumsum()
    values = [c for c in analysis.value_columns + hidden if c in frame and _numeric(frame[c])]
    # a sum of percentages, frequencies or per-thread figures means nothing (two kernels at 40 % occupancy are not
    # at 80 %): `sum` adds the amounts (time, cycles, bytes, instructions) and averages the rest
    averaged = [c for c in values if how == "sum" and not _additive(analysis.units.get(c, ""))]
    grouped = frame.assign(_instance=instance).groupby("_instance", sort=True)
    combined = grouped.agg({**{c: "first" for c in frame.columns if c not in values},
                            **{c: "mean" if c in averaged else how for c in values}})
    combined["kernel"] = grouped["kernel"].agg(lambda names: "+".join(dict.fromkeys(names.dropna())))
    combined.insert(1, "kernels", grouped.size())
    analysis.frame = combined.reset_index(drop=True)
    shown = [c for c in averaged if c in analysis.value_columns]
    analysis.notes.append(f"kernels of one range instance combined with {how} (an instance: consecutive kernels "
                          "with the same NVTX stack)" + (f"; rates, shares and per-thread figures averaged instead: "
                                                         f"{', '.join(shown)}" if shown else ""))


_AMOUNTS = {"ns", "us", "ms", "s", "nsecond", "usecond", "msecond", "second", "cycle", "byte", "kbyte", "mbyte",
            "gbyte", "inst", "sector", "request", "warp", "thread", "block"}


def _additive(unit: str) -> bool:
    """Whether values of this base unit add up across kernels: an amount (ns, cycle, byte, inst), not a rate, a
    share, a frequency or a figure per thread/block (unit with '/', %, hz, or none)."""
    return "/" not in unit and unit.lower() in _AMOUNTS


def _derive(analysis: Analysis, derived, metric_to_column: dict[str, str], hidden: list[str]) -> None:
    import pandas as pd

    frame = analysis.frame
    for name, spec in derived:
        if isinstance(spec, expr.Derived):
            variables = _variables(frame, analysis, metric_to_column, hidden)
            unknown = [n for n in spec.names if n not in variables]
            if unknown:
                close = ", ".join(closest(unknown[0], variables)) or "none"
                raise UsageError(f"--derive {name}: unknown name {unknown[0]!r} (not a metric, parameter or "
                                 f"column); closest: {close}")
            value = spec.evaluate(variables)
        else:
            value = frame.apply(lambda row, fn=spec: fn(_row(row)), axis=1)
        frame[name] = pd.to_numeric(value, errors="coerce") if not isinstance(value, float) else value
        analysis.value_columns.append(name)
        analysis.units[name] = ""


def _row(row) -> dict[str, Any]:
    """A row for a derive function: missing values are NaN, so that arithmetic on them gives NaN."""
    import pandas as pd

    return {k: float("nan") if v is None or v is pd.NA else v for k, v in row.to_dict().items()}


def _variables(frame, analysis: Analysis, metric_to_column: dict[str, str], hidden: list[str]) -> dict[str, Any]:
    import pandas as pd

    variables: dict[str, Any] = {}
    for column in analysis.value_columns + hidden + analysis.params:
        if column in frame:
            series = frame[column]
            variables[column] = pd.to_numeric(series, errors="coerce") if _numeric(series) else series
    for metric, column in metric_to_column.items():
        if column in variables:
            variables[metric] = variables[column]
    return variables


def _group(analysis: Analysis, group_by: str, agg: str) -> None:
    if group_by == "none":
        keep = ["id", "kernel", "nvtx_range", "grid", "block"]
        if "kernels" in analysis.frame:
            keep.insert(1, "kernels")
        params = analysis.params if analysis.show_params else []
        analysis.frame = analysis.frame[keep + params + analysis.value_columns]
        return
    keys = ["kernel"] if group_by == "kernel" else ["annotation", *analysis.params]
    frame = analysis.frame
    if group_by == "nvtx":
        frame = frame.assign(annotation=frame["annotation"].fillna(NO_RANGE))
    values = [c for c in analysis.value_columns if _numeric(frame[c])]
    counts = frame.get("kernels", 1)
    grouped = frame.assign(_order=frame.index, kernels=counts).groupby(keys, dropna=False, sort=False)
    out = grouped.agg({"_order": "min", "kernels": "sum", **{c: agg for c in values}}).reset_index()
    if group_by == "nvtx":
        out = _sorted(out.assign(_last=out["annotation"] == NO_RANGE), ["_last", *keys]).drop(columns="_last")
    else:
        out = _sorted(out, [])
    analysis.frame = out.drop(columns="_order").reset_index(drop=True)
    analysis.value_columns = values
    rows = "range instances" if "kernels" in frame else "kernels"
    what = "kernel name" if group_by == "kernel" else "annotation and configuration"
    analysis.notes.append(f"values are the {agg} over the {rows} of each {what}")
    if group_by == "kernel":
        analysis.params = []


def _sorted(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """By `keys` (annotation, then parameters; missing last), then by first appearance."""
    try:
        return frame.sort_values([*keys, "_order"], na_position="last", kind="stable")
    except TypeError:  # a parameter with numbers and text: keep the order of appearance within annotations
        return frame.sort_values([*keys[:2], "_order"], na_position="last", kind="stable")


def _normalize(analysis: Analysis, baseline: str, speedup: bool) -> None:
    frame = analysis.frame
    annotations = [a for a in frame["annotation"].dropna().unique()]
    if baseline not in annotations:
        raise UsageError(f"--normalize-against {baseline!r}: no such annotation; closest: "
                         f"{', '.join(closest(baseline, annotations)) or 'none'} "
                         f"(annotations: {', '.join(map(str, annotations))})")
    base = frame[frame["annotation"] == baseline]
    keys = analysis.params
    values = [c for c in analysis.value_columns if _numeric(frame[c])]
    merged = frame.merge(base[keys + values], on=keys, how="left", suffixes=("", "__base")) if keys else \
        frame.assign(**{f"{c}__base": base[c].iloc[0] for c in values})
    for c in values:
        merged[c] = merged[f"{c}__base"] / merged[c] if speedup else merged[c] / merged[f"{c}__base"]
        analysis.units[c] = ""
    analysis.frame = merged[frame.columns].reset_index(drop=True)
    formula = f"{baseline} / value" if speedup else f"value / {baseline}"
    analysis.notes.append(f"{'speedups over' if speedup else 'ratios to'} {baseline} at the same configuration "
                          f"({formula}); empty where {baseline} has no such configuration")


def _numeric(series) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(series) or pd.to_numeric(series.dropna(), errors="coerce").notna().all()
