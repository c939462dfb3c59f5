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


def nccl_summary_set(pset, by: str = "op") -> SetResult:
    """NCCL time per operation (or kernel name, or NCCL NVTX range): combined over ranks and per rank."""
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
    timelines = dict(zip(pset.ranks, pset.map(data.step_timeline)))
    return analysis.build(timelines)
