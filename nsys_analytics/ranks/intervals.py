"""Unions of intervals clipped to windows, vectorized (sort once, a running max, binary searches): the GPU busy,
compute and communication time of each step. No I/O."""

from __future__ import annotations

import numpy as np


def islands(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of [start, end) intervals as disjoint sorted islands (empty intervals dropped)."""
    keep = ends > starts
    s, e = starts[keep], ends[keep]
    if len(s) == 0:
        return s, e
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    reach = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, len(s) - 1)
    return s[first], reach[last]


def covered(island_starts: np.ndarray, island_ends: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """For each window [lo, hi): how long the islands cover it."""
    if len(island_starts) == 0:
        return np.zeros(len(lo), dtype=np.int64)
    lengths = np.concatenate([[0], np.cumsum(island_ends - island_starts)])
    i0 = np.searchsorted(island_ends, lo, side="right")   # first island ending after lo
    i1 = np.searchsorted(island_starts, hi, side="left")  # first island starting at or after hi
    total = lengths[np.maximum(i1, i0)] - lengths[i0]
    some = i1 > i0
    head = np.where(some, np.maximum(lo - island_starts[np.minimum(i0, len(island_starts) - 1)], 0), 0)
    tail = np.where(some, np.maximum(island_ends[np.maximum(i1 - 1, 0)] - hi, 0), 0)
    return (total - head - tail).astype(np.int64)


def step_gpu_time(ops: dict[str, np.ndarray], lo: np.ndarray, hi: np.ndarray) -> dict[str, np.ndarray]:
    """busy (anything), compute (non-NCCL kernels), comm (NCCL kernels) and overlap (comm ∩ compute =
    comm + compute − |comm ∪ compute|) per window, from ops' start_ns, end_ns, is_kernel, is_comm."""
    s, e = ops["start_ns"], ops["end_ns"]
    kernel, comm = ops["is_kernel"].astype(bool), ops["is_comm"].astype(bool)
    compute = kernel & ~comm

    def cover(mask):
        return covered(*islands(s[mask], e[mask]), lo, hi)

    busy, comp, com, kern = cover(np.ones(len(s), dtype=bool)), cover(compute), cover(comm), cover(kernel)
    return {"gpu_busy_ns": busy, "compute_ns": comp, "comm_ns": com, "overlap_ns": com + comp - kern}
