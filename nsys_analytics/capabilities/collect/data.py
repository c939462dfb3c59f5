"""Benchmark results read back from the reports: one row per annotation, configuration and run, with the
configuration parsed from the range names by ncu/config.py (the same reader as `ncu --group-by nvtx`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..ncu import config
from ..ncu.frames import kernel_frame
from ..ncu.metrics import resolve_metrics
from .bench_child import RUN

if TYPE_CHECKING:
    import pandas as pd

    from ...data.profile import Profile

NSYS_METRICS = {"kernel_time_ns": "gpu_time", "gpu_span_ns": "gpu_span"}


def ncu_runs(report_path: Path, metric: str, combine: str = "sum") -> tuple[pd.DataFrame, str, list[str]]:
    """(rows of annotation, parameters, run, kernels, value; the metric's base unit; the parameter names) from an
    .ncu-rep: the kernels of one run and annotation combined with `combine`."""
    from ..ncu.report import NcuReport

    with NcuReport(report_path) as report:
        units = report.metric_units()
        metrics = resolve_metrics([metric], units)
        frame = kernel_frame(report, metrics, ["value"])
        nvtx = report.frame("SELECT kernel_id, domain, kind, level, name FROM ncu_nvtx")
    params = [p for p in config.add_configs(frame, nvtx) if p != RUN]
    frame = frame[frame["annotation"].notna()]  # kernels outside every range are no benchmark's
    if RUN not in frame:  # ranges written by hand, without a run number: one run
        frame[RUN] = 0
    keys = ["annotation", *params, RUN]
    grouped = frame.groupby(keys, dropna=False, sort=False).agg(kernels=("value", "size"), value=("value", combine))
    return grouped.reset_index(), units.get(metrics[0], ""), params


def nsys_runs(profile: Profile, domain: str) -> tuple[pd.DataFrame, list[str]]:
    """(rows of annotation, parameters, run, kernels, kernel_time_ns, gpu_span_ns; the parameter names) from an
    nsys profile of a sweep."""
    import pandas as pd

    result = profile.run_file("collect", "bench_ranges", {"domain": domain})
    rows, names = [], []
    for rec in result.to_records():
        parsed = config.parse_range(rec["range_text"])
        if parsed is None:
            continue
        names += [k for k in parsed.params if k not in names and k != RUN]
        rows.append({"annotation": parsed.annotation, **parsed.params, "kernels": rec["kernels"],
                     "kernel_time_ns": rec["kernel_time_ns"], "gpu_span_ns": rec["gpu_span_ns"]})
    return pd.DataFrame(rows, columns=["annotation", *names, RUN, "kernels", *NSYS_METRICS]), names
