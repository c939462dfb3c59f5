"""nvtx_sum and nvtx_gpu_proj_sum over many ranks, merged exactly: from every rank's distribution of range
durations, and from its projected range instances (the rows of nvtx_gpu_proj_trace: a few per step)."""

from __future__ import annotations

import pandas as pd

from ..nvtx.report import (KERNEL_HEADERS, PROJECTION_SUMMARY_HEADERS, RANGE_HEADERS, nvtx_gpu_projection,
                           require_ranges)
from .merge import _stats, merge_distributions, summarize
from .summary import RECIPE_NOTE, SetResult, blank_single_std, result_of

_INSTANCE_COLUMNS = ["name", "style", "projected_duration_ns", "orig_duration_ns", "gpu_ops", "level", "num_child"]
# nvtx_gpu_proj_sum prints Mean, Median and Std (rounded as the recipe does); the averages it lacks as nsys stats.
_RECIPE = ("proj_avg_ns", "proj_med_ns", "proj_stddev_ns")
_ROUNDED = ("avg_gpu_ops", "avg_range_lvl", "avg_num_child")


def projection_instances(member, attribution: str = "thread", exclusive: bool = False) -> pd.DataFrame:
    """One row per range instance projected onto the GPU (runs where the rank's file is read)."""
    with member.open() as p:
        return nvtx_gpu_projection(p, attribution, exclusive).to_pandas()[_INSTANCE_COLUMNS]


def projection_summary(instances: pd.DataFrame) -> pd.DataFrame:
    """= nvtx_gpu_projection_summary.sql, over any set of instances (unrounded, same order)."""
    rows = []
    for (name, style), g in instances.groupby(["name", "style"], sort=False):
        counts = g["projected_duration_ns"].value_counts()
        total, n, avg, med, lo, hi, sd = _stats(counts.index.to_numpy(dtype="int64"), counts.to_numpy())
        ops = int(g["gpu_ops"].sum())
        rows.append((name, style, total, int(g["orig_duration_ns"].sum()), n, avg, med, lo, hi, sd, ops, ops / n,
                     float(g["level"].mean()), float(g["num_child"].mean())))
    out = pd.DataFrame(rows, columns=list(PROJECTION_SUMMARY_HEADERS))
    return out.sort_values(["total_proj_time_ns", "range", "style"], ascending=[False, True, True],
                           kind="stable").reset_index(drop=True)


def nvtx_gpu_set(pset, attribution: str = "thread", exclusive: bool = False) -> SetResult:
    per_rank = pset.map(projection_instances, attribution, exclusive)
    combined = projection_summary(pd.concat(per_rank, ignore_index=True))
    ranks = pd.concat([projection_summary(f).assign(rank=r) for r, f in zip(pset.ranks, per_rank)],
                      ignore_index=True)
    headers = {"rank": "Rank", **PROJECTION_SUMMARY_HEADERS}

    def result(df):
        return result_of(blank_single_std(df, "range_instances", "proj_stddev_ns"), headers, _ROUNDED, _RECIPE)

    return SetResult(result(combined), result(ranks),
                     ["Combined statistics are computed from the union of every rank's projected range instances: "
                      "exact.", RECIPE_NOTE.replace("Avg, Med and StdDev", "Proj Avg, Med and StdDev")])


def range_durations(member) -> pd.DataFrame:
    """(name, style, duration_ns, instances): the distribution of one rank's NVTX range durations (nvtx_sum)."""
    with member.open() as p:
        require_ranges(p)
        return p.frame("SELECT name, style, duration_ns, count(*) AS instances FROM _nvtx_ranges "
                    "WHERE duration_ns IS NOT NULL GROUP BY ALL")


def nvtx_sum_set(pset) -> SetResult:
    """nvtx_sum over every rank: combined (exact, from the union of range durations) and per rank."""
    per_rank = pset.map(range_durations)

    def summary(frames):
        dist = merge_distributions([f.assign(key=f["name"] + "\x1f" + f["style"]) for f in frames], key="key")
        out = summarize(dist, key="key")
        out[["range", "style"]] = out["key"].str.split("\x1f", n=1, expand=True)
        return out

    ranks = pd.concat([summary([f]).assign(rank=r) for r, f in zip(pset.ranks, per_rank)], ignore_index=True)
    headers = {"rank": "Rank", **RANGE_HEADERS}

    def result(df):  # Time (%), which the recipe lacks, as nsys stats; its statistics as the recipe
        return result_of(blank_single_std(df), headers, ("time_pct",), ("avg_ns", "med_ns", "stddev_ns"))

    return SetResult(result(summary(per_rank)), result(ranks),
                     ["Time (%) is each range's share of the summed time of all ranges listed.",
                      "Combined statistics are computed from the union of every rank's range durations: exact.",
                      RECIPE_NOTE])


def nccl_range_durations(member) -> pd.DataFrame:
    """(name, duration_ns, instances) of the rank's NVTX ranges in NCCL's own domain (`NCCL`): CPU time of each
    NCCL call (ncclAllReduce, ncclBroadcast, ...), the input of the nccl_sum recipe."""
    with member.open() as p:
        if not p.has_table("NVTX_EVENTS"):
            return pd.DataFrame({"name": pd.Series(dtype=object), "duration_ns": pd.Series(dtype="int64"),
                                 "instances": pd.Series(dtype="int64")})
        return p.frame("SELECT name, duration_ns, count(*) AS instances FROM nvtx_events "
                    "WHERE domain = 'NCCL' AND style <> 'Mark' AND duration_ns IS NOT NULL GROUP BY ALL")


def nvtx_kernel_parts(member, attribution: str = "thread", exclusive: bool = False, name_kind: str = "demangled",
                      graphs: bool = False) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """One rank's nvtx_kern_sum (its rows, as the single-file command gives them), the distribution of its
    kernel durations per (range, style, kernel name), and its notes (runs where the rank's file is read)."""
    from ...data import sql_files
    from ..nvtx.report import nvtx_kernel_summary

    with member.open() as p:
        summary = nvtx_kernel_summary(p, attribution, exclusive, name_kind, graphs)
        params = {"attribution": attribution, "exclusive": exclusive, "name_kind": name_kind,
                  "graphs": graphs}
        dist = p.sql(sql_files.inline_params(sql_files.read("ranks", "nvtx_kernel_durations").text,
                                             params)).to_pandas()
    return pd.DataFrame(summary.rows, columns=summary.columns, dtype=object), dist, list(summary.notes)


def nvtx_kernels_set(pset, attribution: str = "thread", exclusive: bool = False, name_kind: str = "demangled",
                     graphs: bool = False) -> SetResult:
    """nvtx_kern_sum over every rank. Per rank: each rank's own rows (PID, TID). Combined: one row per (range,
    style, kernel name) over all ranks and threads: NVTX Inst and Kern Inst summed, the statistics from the
    union of the kernel durations (exact)."""
    from ...core.result import Result

    summaries, dists, notes, rows = [], [], [], []
    for m, (summary, dist, own) in pset.imap(nvtx_kernel_parts, attribution, exclusive, name_kind, graphs):
        summaries.append(summary)
        rows += [(m.rank, *row) for row in summary.itertuples(index=False, name=None)]  # as the rank's own output
        dists.append(dist)
        notes += [n for n in own if n not in notes]
    combined = _nvtx_kernels_combined(pd.concat(summaries, ignore_index=True), dists)
    headers = {"rank": "Rank", **KERNEL_HEADERS}
    columns = ["rank", *summaries[0].columns]
    ranks = Result(columns, rows, headers=[headers[c] for c in columns])
    return SetResult(result_of(combined, headers, ("avg_ns", "med_ns", "stddev_ns")), ranks,
                     ["Combined: one row per range, style and kernel name over every rank and thread (no PID, TID); "
                      "NVTX Inst and Kern Inst are summed, the statistics come from the union of the kernel "
                      "durations: exact.", *notes])


def _nvtx_kernels_combined(summaries: pd.DataFrame, dists: list[pd.DataFrame]) -> pd.DataFrame:
    keys = ["range", "style", "kernel_name"]

    def keyed(d):
        k = d[keys].astype(object).where(d[keys].notna(), "")
        return pd.DataFrame({"key": k["range"] + "\x1f" + k["style"] + "\x1f" + k["kernel_name"],
                             "duration_ns": d["duration_ns"], "instances": d["instances"]})

    stats = summarize(merge_distributions([keyed(d) for d in dists], key="key"), key="key")
    if stats.empty:
        return pd.DataFrame(columns=[c for c in KERNEL_HEADERS if c not in ("pid", "tid")])
    counts = keyed(summaries.assign(duration_ns=0, instances=0))[["key"]].assign(
        range_instances=summaries["range_instances"].to_numpy(), kernel_instances=summaries["kernel_instances"].to_numpy())
    counts = counts.groupby("key", as_index=False)[["range_instances", "kernel_instances"]].sum()
    out = stats.merge(counts, on="key", how="left")
    out[keys] = out["key"].str.split("\x1f", n=2, expand=True)
    for c in ("range", "style"):
        out[c] = pd.Series([v or None for v in out[c]], index=out.index, dtype=object)
    out = out.sort_values(["range", "total_time_ns", "kernel_name"], ascending=[True, False, True],
                          na_position="first", kind="stable")
    return out[[c for c in KERNEL_HEADERS if c not in ("pid", "tid")]].reset_index(drop=True)
