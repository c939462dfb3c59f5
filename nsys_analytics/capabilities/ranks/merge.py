"""Exact merges of per-rank distributions. No I/O.

A rank sends (key, duration_ns, instances): how many events of each key lasted each duration. The union of the
ranks' distributions is the distribution of the whole job, so every statistic of the combined table is computed
from it exactly as for one file: count, sum, min, max and mean, the median (mean of the two middle values for an
even count, as nsys and DuckDB compute it) and the sample standard deviation from exact integer sums.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

STAT_COLUMNS = ["total_time_ns", "instances", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns"]


def merge_distributions(frames: list[pd.DataFrame], key: str = "name") -> pd.DataFrame:
    """One distribution from many: instances of equal (key, duration) summed."""
    parts = [f[[key, "duration_ns", "instances"]].astype({key: object}) for f in frames if len(f)]
    if not parts:
        return pd.DataFrame({key: pd.Series(dtype=object), "duration_ns": pd.Series(dtype="int64"),
                             "instances": pd.Series(dtype="int64")})
    merged = pd.concat(parts, ignore_index=True)
    return merged.groupby([key, "duration_ns"], as_index=False, sort=True)["instances"].sum()


def summarize(dist: pd.DataFrame, key: str = "name") -> pd.DataFrame:
    """Per key: the nsys summary statistics of a (key, duration_ns, instances) distribution, heaviest first
    (ties by key). Unrounded; `stddev_ns` is 0 for a single instance, as nsys prints it."""
    rows = []
    for name, g in dist.groupby(key, sort=True):
        rows.append((name, *_stats(g["duration_ns"].to_numpy(dtype=np.int64), g["instances"].to_numpy(dtype=np.int64))))
    out = pd.DataFrame(rows, columns=[key, *STAT_COLUMNS])
    if out.empty:
        return out
    total = sum(int(t) for t in out["total_time_ns"])
    out.insert(0, "time_pct", [int(t) * 100.0 / total if total else 0.0 for t in out["total_time_ns"]])
    return out.sort_values(["total_time_ns", key], ascending=[False, True], kind="stable").reset_index(drop=True)


def _stats(values: np.ndarray, counts: np.ndarray) -> tuple:
    order = np.argsort(values, kind="stable")
    values, counts = values[order], counts[order]
    n = int(counts.sum())
    total = sum(int(v) * int(c) for v, c in zip(values, counts))  # Python ints: exact whatever the size
    squares = sum(int(v) * int(v) * int(c) for v, c in zip(values, counts))
    cumulative = np.cumsum(counts)
    lo = int(values[np.searchsorted(cumulative, (n - 1) // 2 + 1)])
    hi = int(values[np.searchsorted(cumulative, n // 2 + 1)])
    variance = (n * squares - total * total) / (n * (n - 1)) if n > 1 else 0
    return (total, n, total / n, (lo + hi) / 2, int(values[0]), int(values[-1]), math.sqrt(variance))
