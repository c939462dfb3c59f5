"""Where in a step each kernel was launched: the innermost NVTX range open at its launch, as a path of range names
below the step (`forward > block_2 > mlp`). No I/O: numpy arrays in, arrays out.

Ranges of one process nest by time whatever thread holds them (PyTorch's autograd thread runs the backward inside the
main thread's `backward`), so a range's parent is the latest-starting range of its process that contains it. The
innermost range open at a time t is found without comparing every kernel with every range: the range that starts
last at or before t, or, when it has already ended, its nearest ancestor still open at t (a few vectorized steps up
the tree, as many as the ranges are deep)."""

from __future__ import annotations

import numpy as np

SEP = " > "


def parents(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For ranges sorted by (start, -end): the index of each one's innermost container (-1: none). A range that
    crosses another (starts inside it, ends after it) is not its child."""
    parent = np.full(len(starts), -1, dtype=np.int64)
    stack: list[int] = []
    for i in range(len(starts)):
        while stack and ends[stack[-1]] < ends[i]:
            stack.pop()
        if stack:
            parent[i] = stack[-1]
        stack.append(i)
    return parent


def innermost(starts: np.ndarray, ends: np.ndarray, parent: np.ndarray, times: np.ndarray) -> np.ndarray:
    """For each time: the index of the innermost range (sorted as for `parents`) with start <= t <= end; -1: none."""
    if not len(starts) or not len(times):
        return np.full(len(times), -1, dtype=np.int64)
    cand = np.searchsorted(starts, times, side="right") - 1
    while True:
        closed = cand >= 0
        closed[closed] = ends[cand[closed]] < times[closed]
        if not closed.any():
            return cand
        cand[closed] = parent[cand[closed]]


def step_paths(starts, ends, names, parent, steps) -> tuple[np.ndarray, list[str]]:
    """For each range (sorted as for `parents`): the step it lies in (index into `steps`, a frame with start_ns,
    end_ns sorted by start; -1: none) and its path of names below that step's range ('' for the step range itself
    and for ranges of no step)."""
    n = len(starts)
    step_of = np.full(n, -1, dtype=np.int64)
    if len(steps):
        lo = steps["start_ns"].to_numpy(dtype=np.int64)
        hi = steps["end_ns"].to_numpy(dtype=np.int64)
        k = np.searchsorted(lo, starts, side="right") - 1
        inside = (k >= 0) & (ends <= hi[np.clip(k, 0, None)])
        step_of = np.where(inside, k, -1)
    is_step = np.zeros(n, dtype=bool)
    if len(steps):
        key = set(zip(steps["start_ns"].astype("int64"), steps["end_ns"].astype("int64")))
        is_step = np.fromiter(((int(s), int(e)) in key for s, e in zip(starts, ends)), dtype=bool, count=n)
    paths = [""] * n
    for i in range(n):  # parents come before their children in this order
        if step_of[i] < 0 or is_step[i]:
            continue
        up = parent[i]
        above = paths[up] if up >= 0 and step_of[up] == step_of[i] and not is_step[up] else ""
        paths[i] = f"{above}{SEP}{names[i]}" if above else str(names[i])
    return step_of, paths


def prefixes(path: str) -> list[str]:
    """'a > b > c' -> ['a', 'a > b', 'a > b > c']; '' -> []."""
    if not path:
        return []
    parts = path.split(SEP)
    return [SEP.join(parts[:i]) for i in range(1, len(parts) + 1)]
