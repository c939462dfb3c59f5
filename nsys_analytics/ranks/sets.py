"""Reports over a `ProfileSet`: each runs per-rank queries on the set's engine and merges their small frames."""

from __future__ import annotations

import pandas as pd

from ..filters import KernelFilter
from . import analysis, data
from .summary import SetResult, distribution_summary, kernel_set_summary

NCCL_KEYS = ("op", "name", "nvtx_range")


def kernel_summary_set(pset, kernel_filter: KernelFilter = KernelFilter(), limit: int | None = None) -> SetResult:
    """cuda_gpu_kern_sum over every rank: combined (exact, from the union of durations) and per rank."""
    return kernel_set_summary(list(zip(pset.ranks, pset.map(data.kernel_durations, kernel_filter))), limit)


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
        result.notes.insert(0, "No NCCL NVTX ranges (domain `NCCL`: NCCL 2.19+ traced with --trace=nvtx): GPU time "
                               "of NCCL kernels per operation instead.")
        return result
    result = distribution_summary(per_rank, key_header="Text")
    result.notes.insert(0, "CPU time of NCCL calls (NVTX domain `NCCL`), as the nccl_sum recipe; --by op|name for "
                           "the GPU time of NCCL kernels.")
    return result


def nccl_summary_set(pset, by: str = "op") -> SetResult:
    """NCCL kernels' GPU time per operation (or kernel name, or NCCL NVTX range): combined over ranks and per
    rank."""
    ops = nccl_frame(pset)
    per_rank = []
    for rank in pset.ranks:
        mine = ops[ops["rank"] == rank]
        dist = (mine.assign(key=mine[by].fillna("(none)"))
                .groupby(["key", "duration_ns"], as_index=False).size().rename(columns={"size": "instances"}))
        per_rank.append((rank, dist.rename(columns={"key": "name"})))
    result = distribution_summary(per_rank, key_header={"op": "Operation", "name": "Name",
                                                        "nvtx_range": "NVTX Range"}[by])
    if ops.empty:
        result.notes.append("No NCCL kernels (ncclDevKernel_* / ncclKernel_*) in these profiles.")
    return result


def ranks_report(pset) -> analysis.RanksReport:
    """Steps, waits in collectives and the straggler over every rank (the `ranks` command)."""
    return analysis.build((m.rank, t) for m, t in pset.imap(data.step_timeline))  # folded in as they arrive
