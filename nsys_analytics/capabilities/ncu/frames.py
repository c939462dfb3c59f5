"""Per-result DataFrames from an ncu report: identity columns plus one column per chosen metric."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pandas as pd

    from ...core.result import Result


class Queries(Protocol):
    """What a frame is read from: an `NcuReport` (report.py imports this module, so it is not named here)."""

    def run_file(self, folder: str, name: str, params: dict[str, Any] | None = None) -> Result: ...


IDENTITY = ("id", "kernel", "name", "mangled_name", "nvtx_range", "nvtx_path", "grid", "block")


def kernel_frame(report: Queries, metrics: list[str], columns: list[str] | None = None) -> pd.DataFrame:
    """One row per result: IDENTITY columns, then `metrics` (base units) named `columns` (default: the names).

    A text metric's column holds its text; a metric a result lacks is NaN/None.
    """
    columns = columns or list(metrics)
    frame = report.run_file("ncu", "kernel_identity").to_pandas()
    if not metrics:
        return frame
    long = report.run_file("ncu", "metric_values", {"metrics": ",".join(metrics)}).to_pandas()
    long["cell"] = long["value"].astype(object).where(long["text"].isna(), long["text"])
    wide = long.pivot(index="kernel_id", columns="metric", values="cell")
    for metric, column in zip(metrics, columns):
        values = wide[metric] if metric in wide.columns else None
        frame[column] = frame["id"].map(values) if values is not None else float("nan")
        if values is not None and long.loc[long["metric"] == metric, "text"].isna().all():
            frame[column] = frame[column].astype(float)
    return frame
