"""Reports over a `ProfileSet`: each runs per-rank queries on the set's engine and merges their small frames."""

from __future__ import annotations

import pandas as pd

from ...core.filters import KernelFilter
from . import analysis, data
from .summary import SetResult, distribution_summary, kernel_set_summary

NCCL_KEYS = ("op", "name", "nvtx_range")


def kernel_summary_set(pset, kernel_filter: KernelFilter = KernelFilter(), limit: int | None = None,
                       by_launch: bool = False, graphs: bool = False) -> SetResult:
    """cuda_gpu_kern_sum (by_launch: cuda_gpu_kern_gb_sum) over every rank: combined (exact, from the union of
    durations) and per rank. `graphs`: whole CUDA graph executions too, as `[CUDA graph N]` rows."""
    dists = list(zip(pset.ranks, pset.map(data.kernel_durations, kernel_filter, by_launch, graphs)))
    result = kernel_set_summary(dists, limit, by_launch)
    if graphs:
        result.notes.append("Includes whole CUDA graph executions as [CUDA graph N] rows where a rank traced graphs "
                            "whole; nsys stats leaves them out.")
    return result


def nccl_frame(pset) -> pd.DataFrame:
    """The NCCL operations of every rank on the common clock, with a `rank` column."""
    frames = [f.assign(rank=r) for r, f in zip(pset.ranks, pset.map(data.nccl_ops)) if len(f)]
    if not frames:
        return data._empty_nccl().assign(rank=pd.Series(dtype="int64"))
    out = pd.concat(frames, ignore_index=True)
    return out[["rank", *[c for c in out.columns if c != "rank"]]]


def nccl_sum_set(pset) -> SetResult:
    """= the nccl_sum recipe: CPU time of NCCL's calls (its NVTX ranges, domain `NCCL`) per call name, over all
    ranks (exact merge) and per rank. Without the NCCL domain: the GPU time of NCCL kernels per operation."""
    from .nvtx import nccl_range_durations

    per_rank = list(zip(pset.ranks, pset.map(nccl_range_durations)))
    if all(d.empty for _, d in per_rank):
        result = nccl_summary_set(pset, "op")
        if result.combined.rows:
            result.notes.insert(0, "No NCCL NVTX ranges (domain `NCCL`: NCCL 2.19+ traced with --trace=nvtx): GPU "
                                   "time of NCCL kernels per operation instead.")
        else:  # one sentence, not the statistics' notes on rows there are none of
            result.notes = ["No NCCL activity: no NCCL NVTX ranges (domain `NCCL`) and no NCCL kernels "
                            "(ncclDevKernel_* / ncclKernel_*) in these profiles; a run on one GPU has none."]
        return result
    result = distribution_summary(per_rank, key_header="Text")
    result.notes.insert(0, "CPU time of NCCL calls (NVTX domain `NCCL`), as the nccl_sum recipe; --by op|name for "
                           "the GPU time of NCCL kernels.")
    return result


def nccl_summary_set(pset, by: str = "op") -> SetResult:
    """NCCL kernels' GPU time per operation (or kernel name, or NCCL NVTX range): combined over ranks and per
    rank. Each rank's kernels are folded into their distribution where the rank is read (data.nccl_distribution),
    and the parent gathers only these (256 ranks of 4,536 NCCL kernels: a million rows of strings otherwise)."""
    per_rank, kernels, known, ranged = [], 0, 0, False
    for m, (dist, n, sized, in_range) in pset.imap(data.nccl_distribution, by):
        per_rank.append((m.rank, dist.rename(columns={"key": "name"})))
        kernels += n
        known += sized
        ranged = ranged or in_range
    result = distribution_summary(per_rank, key_header={"op": "Operation", "name": "Name",
                                                        "nvtx_range": "NVTX Range"}[by])
    if not kernels:  # the statistics' notes would describe rows there are none of
        result.notes = ["No NCCL kernels (ncclDevKernel_* / ncclKernel_*) in these profiles."]
    else:
        result.notes.append(_bytes_note(kernels, known, ranged))
    return result


def bytes_note(ops: pd.DataFrame) -> str:
    """How many NCCL kernels have a known message size, and why the others do not."""
    return _bytes_note(len(ops), int(ops["bytes"].notna().sum()), bool(ops["nvtx_range"].notna().any()))


def _bytes_note(kernels: int, known: int, ranged: bool) -> str:
    """`ranged`: some kernel was launched inside one of NCCL's NVTX ranges."""
    if known == kernels:
        return f"Message sizes known for all {kernels} NCCL kernels (NCCL's NVTX payloads); --trace lists them."
    if not known:
        return f"bytes unknown for all {kernels} NCCL kernels: {_why_unknown(ranged)}."
    return (f"Message sizes known for {known} of {kernels} NCCL kernels; bytes unknown for the others: "
            f"{_why_unknown(ranged)}.")


def _why_unknown(ranged: bool) -> str:
    if ranged:
        return ("the export has NCCL's NVTX ranges but not their payloads' sizes: re-export with `nsys export --type "
                "sqlite --include-json true`")
    return "no NCCL NVTX ranges (NCCL 2.19+ under `nsys profile --trace=nvtx` records them)"


def ranks_report(pset) -> analysis.RanksReport:
    """Steps, waits in collectives and the straggler over every rank (the `ranks` command); the set's job check
    (files of several jobs, a partial set) decides whether a straggler can be named."""
    return analysis.build(((m.rank, t) for m, t in pset.imap(data.step_timeline)), pset.job)  # folded in as they arrive


def classify_parts(member, rules, kernel_filter: KernelFilter) -> list[tuple]:
    """Every kernel name of one rank with its category and time (no limit, matched or not): what the combined
    classify table is summed from."""
    from ..categories.classify import classify_kernels

    with member.open() as p:
        return classify_kernels(p, rules, kernel_filter).rows


def classify_set(pset, rules, kernel_filter: KernelFilter = KernelFilter(), unmatched: bool = False,
                 limit: int | None = None) -> SetResult:
    """classify over every rank: per kernel name, instances and time summed over the ranks (exact), Time (%) of
    the ranks' summed kernel time; per rank, each rank's own table."""
    from ..categories.classify import COLUMNS, HEADERS
    from ...core.result import Result

    summed: dict[tuple, list[int]] = {}
    rank_rows: list[tuple] = []
    for m, rows in pset.imap(classify_parts, rules, kernel_filter):
        rank_rows += [(m.rank, *row) for row in _classify_view(rows, unmatched, limit)]
        for category, rule, tags, instances, total_ns, _pct, name in rows:
            entry = summed.setdefault((category, rule, tags, name), [0, 0])
            entry[0] += instances
            entry[1] += total_ns
    total = sum(t for _n, t in summed.values())
    combined = [(c, r, tags, n, t, 100.0 * t / total if total else 0.0, name)
                for (c, r, tags, name), (n, t) in sorted(summed.items(), key=lambda kv: (-kv[1][1], kv[0][3]))]
    return SetResult(Result(list(COLUMNS), _classify_view(combined, unmatched, limit), headers=list(HEADERS)),
                     Result(["rank", *COLUMNS], rank_rows, headers=["Rank", *HEADERS]),
                     ["Combined: instances and time summed over the ranks per kernel name; Time (%) is of all "
                      "ranks' summed kernel time."])


def _classify_view(rows: list[tuple], unmatched: bool, limit: int | None) -> list[tuple]:
    """The rows classify shows: only those no rule matched (`unmatched`, rule ''), the first `limit`."""
    listed = [r for r in rows if not r[1]] if unmatched else rows
    return listed[:limit]
