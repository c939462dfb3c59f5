"""The long-form result of a benchmark sweep — one row per annotation, configuration, run and metric —
with derived metrics and ratios to a baseline annotation. No I/O; `BenchFrame.plot()` draws it (plot.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from ...core.errors import UsageError


class BenchFrame(pd.DataFrame):
    """A DataFrame with columns annotation, <configuration...>, run, metric, value, unit (, relative, kernels);
    `plot()` draws value (or relative) against a configuration parameter, one line per annotation."""

    _metadata = ("params", "reports")

    @property
    def _constructor(self):
        return BenchFrame

    def plot(self, metric: str | None = None, x: str | None = None, relative: bool = False, path=None,
             title: str | None = None):
        """Mean over runs of `metric` (default: the first) against parameter `x` (default: the first); with
        `relative`, the ratio to the baseline annotation. Saved to `path` (PNG) when given; returns the figure."""
        from .plot import plot_bench

        return plot_bench(pd.DataFrame(self), list(getattr(self, "params", []) or []), metric, x, relative, path,
                          title)


def long_form(runs: pd.DataFrame, params: list[str], metrics: dict[str, str], units: dict[str, str],
              derive: Callable[..., Any] | None = None, normalize_against: str | None = None) -> BenchFrame:
    """`runs`: one row per annotation/configuration/run with a column per metric (`metrics`: column -> metric
    name). `derive(value, **config)` of the first metric gives one number (metric named after the function)
    or a dict of them. `normalize_against`: add `relative` = value / the baseline annotation's mean value for
    the same configuration and metric."""
    keys = ["annotation", *params, "run"]
    parts = []
    for column, metric in metrics.items():
        part = runs[keys + ["kernels"]].copy()
        part["metric"], part["value"], part["unit"] = metric, runs[column].astype(float), units.get(column, "")
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    if derive is not None:
        frame = pd.concat([frame, _derived(runs, params, next(iter(metrics)), derive)], ignore_index=True)
    if normalize_against is not None:
        frame["relative"] = _relative(frame, params, normalize_against)
    frame = frame[[*keys, "metric", "value", "unit", *(["relative"] if normalize_against else []), "kernels"]]
    for column in [*params, "run", "kernels"]:
        frame[column] = _integers(frame[column])
    out = BenchFrame(frame)
    out.params = params
    return out


def _derived(runs: pd.DataFrame, params: list[str], column: str, derive: Callable[..., Any]) -> pd.DataFrame:
    rows = []
    for rec in runs.to_dict("records"):
        config = {p: rec[p] for p in params}
        got = derive(rec[column], **{p: _nan_if_missing(v) for p, v in config.items()})
        values = got if isinstance(got, dict) else {getattr(derive, "__name__", "derived"): got}
        for name, value in values.items():
            rows.append({"annotation": rec["annotation"], **config, "run": rec["run"], "kernels": rec["kernels"],
                         "metric": name, "value": float(value), "unit": ""})
    return pd.DataFrame(rows)


def _integers(column: pd.Series) -> pd.Series:
    """Whole numbers as a nullable integer column (a group-by over missing values turns them into floats)."""
    if pd.api.types.is_float_dtype(column):
        present = column.dropna()
        if (present == present.round()).all():
            return column.astype("Int64")
    return column


def _nan_if_missing(value):
    """A parameter this annotation lacks reaches `derive` as NaN, so that arithmetic on it gives NaN."""
    return float("nan") if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) else value


def _relative(frame: pd.DataFrame, params: list[str], baseline: str) -> pd.Series:
    if baseline not in set(frame["annotation"]):
        raise UsageError(f"normalize_against={baseline!r}: no such annotation; the annotations are "
                         f"{', '.join(sorted(map(str, frame['annotation'].unique())))}")
    keys = [*params, "metric"]
    base = (frame[frame["annotation"] == baseline].groupby(keys, dropna=False)["value"].mean()
            .rename("baseline").reset_index())
    merged = frame[keys].merge(base, on=keys, how="left")
    return frame["value"].to_numpy() / merged["baseline"].to_numpy()
