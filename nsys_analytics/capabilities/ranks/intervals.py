"""Unions of intervals clipped to windows, vectorized (sort once, a running max, binary searches): the GPU busy,
compute and communication time of each step. No I/O. `Coverage` takes the intervals in start order batch by
batch, so that a profile's millions of GPU operations never sit in memory at once."""

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


def step_gpu_time(batches, lo: np.ndarray, hi: np.ndarray) -> dict[str, np.ndarray]:
    """busy (anything), compute (non-NCCL kernels), comm (NCCL kernels) and overlap (comm ∩ compute =
    comm + compute − |comm ∪ compute|) per window, from batches of ops (start_ns, end_ns, is_kernel, is_comm:
    arrays, the ops sorted by start across batches)."""
    kinds = ("busy", "compute", "comm", "kernel")
    coverage = {k: Coverage(lo, hi) for k in kinds}
    for ops in batches:
        s, e = np.asarray(ops["start_ns"], dtype=np.int64), np.asarray(ops["end_ns"], dtype=np.int64)
        kernel, comm = np.asarray(ops["is_kernel"], dtype=bool), np.asarray(ops["is_comm"], dtype=bool)
        for k, mask in zip(kinds, (np.ones(len(s), dtype=bool), kernel & ~comm, comm, kernel)):
            coverage[k].add(s[mask], e[mask])
    busy, comp, com, kern = (coverage[k].result() for k in kinds)
    return {"gpu_busy_ns": busy, "compute_ns": comp, "comm_ns": com, "overlap_ns": com + comp - kern}

class Coverage:
    """How long the union of intervals covers each window [lo, hi) (any windows, in any order), fed intervals
    sorted by start, batch after batch: each batch's islands but the last are complete and counted; the last
    one is carried, since the next batch may extend it. The sum over batches equals covered(islands(all))."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        self.lo, self.hi = lo, hi
        self.total = np.zeros(len(lo), dtype=np.int64)
        self.open: tuple[np.ndarray, np.ndarray] | None = None  # the last island so far (arrays of one)

    def add(self, starts: np.ndarray, ends: np.ndarray) -> None:
        """The next intervals, sorted by start, none starting before an earlier batch's."""
        if self.open is not None:
            starts, ends = np.concatenate([self.open[0], starts]), np.concatenate([self.open[1], ends])
        s, e = islands(starts, ends)
        if len(s):
            self.total += covered(s[:-1], e[:-1], self.lo, self.hi)
            self.open = (s[-1:], e[-1:])

    def result(self) -> np.ndarray:
        if self.open is not None:
            self.total += covered(*self.open, self.lo, self.hi)
            self.open = None
        return self.total
