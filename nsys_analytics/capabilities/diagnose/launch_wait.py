"""How long the GPU waits for launches: the idle time before each launch-bound kernel (a short kernel that ran
shorter than the call that launched it) beyond the spacing the GPU leaves between kernels that were queued already.

A kernel's gap is its start less the latest end of the operations that started before it (on its process/device,
streams merged). The spacing is the median gap of the kernels whose launch call had returned before that latest
end: those waited in the queue, so their gap is the GPU's own, with or without launch overhead (about 1 us on an
H200). A gap from gpu_starved's minimum (20 us) on is the host doing something else between launches (a sync, host
work, a data loader): that rule's, not counted here. On diag_faults' launch-bound loop the gaps beyond the spacing
sum to 183.1 ms, against 195.5 ms by the workload's CUDA events (188.9 ms with its 236 gaps of 20 us or more); the
launch calls' time beyond their kernels' is 172.6 ms, and all the gaps with the spacing 233.3 ms.

Computed only for the process/devices where launch_bound fires, one pass in start order over time slices of about
sweep.SLICE_ROWS operations (the running maximum of the ends carried from slice to slice; one slice where _range_ops
is not stored): numpy, not a SQL window, which took 2.1-2.3 s at 10 M kernels. The gaps are kept as counts per
nanosecond below HISTOGRAM_NS (and a sum above it), so memory does not grow with the kernels and the spacing can be
taken at the end; the counts are kept per chunk of launch_bound's grid, for the chunks where it waits longest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...data import sql_files
from .sweep import NONE, SLICE_ROWS

if TYPE_CHECKING:
    from ...data.profile import Profile
    from .data import Window

HISTOGRAM_NS = 1_000_000  # gaps shorter than this are counted per nanosecond, per chunk
_SPACING_NS = 100_000  # a queued kernel's gap is counted up to this; a longer one counts as this long
_EDGES = 2**62  # beyond any start: the first slice's floor and the last one's ceiling


@dataclass(frozen=True)
class LaunchWait:
    wait_ns: int  # idle time before the launch-bound kernels beyond the spacing
    spacing_ns: int  # median gap between queued kernels (0: no kernel was queued)
    queued: int  # kernels whose gap the spacing is the median of
    worst: list[tuple[int, int]]  # the (start, end) of the three chunks where it waits longest, in time order
    span_ns: int  # the process/device's GPU span (its chunks' length)


def launch_wait(profile: Profile, window: Window, pid: int, device: int, short_ns: int,
                long_launch_ns: int, max_gap_ns: int, chunks: int) -> LaunchWait:
    """The GPU's wait for the launches of the kernels of (`pid`, `device`) shorter than `short_ns` and than their
    launch call, a launch call longer than `long_launch_ns` not counting (launch_bound's kernels), over their gaps
    shorter than `max_gap_ns` (a longer one is the host doing something else: gpu_starved's), on the grid of
    `chunks` chunks (each kernel in the chunk it starts in, as launch_bound.sql counts it)."""
    import numpy as np

    grid = _grid(profile, pid, device, chunks)
    if not grid:
        return LaunchWait(0, 0, 0, [], 0)
    span_start, chunk_ns, n = grid[0][3], grid[0][4], len(grid)
    width = min(max_gap_ns, HISTOGRAM_NS)
    counts = np.zeros(n * width, dtype=np.int64)  # per chunk, launch-bound kernels per gap in ns
    long_sum, long_n = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    queued_counts = np.zeros(_SPACING_NS + 1, dtype=np.int64)
    max_end = NONE
    slices, only = _slices(profile, pid, device)
    for lo, hi in slices:
        params = {**window.params(), "pid": pid, "device": device, "every_key": only, "lo": lo, "hi": hi,
                  "short_ns": short_ns, "long_launch_ns": long_launch_ns}
        text = sql_files.inline_params(sql_files.read("diagnose", "_launch_wait_ops").text, params)
        cols = profile.con.execute(text).fetchnumpy()
        if not len(cols["start_ns"]):
            continue
        order = np.argsort(cols["start_ns"], kind="stable")  # nearly in order already: a few runs merged
        start, end, bound, launch_end = (np.asarray(cols[c])[order]
                                         for c in ("start_ns", "end_ns", "bound", "launch_end_ns"))
        del cols
        running = np.maximum.accumulate(end)
        before = np.empty_like(end)  # the latest end of the operations that started before each one
        before[0] = max_end
        np.maximum(running[:-1], max_end, out=before[1:])
        max_end = max(max_end, int(running[-1]))
        gap = start - before
        gap[before == NONE] = -1  # nothing before it in the window: no gap
        queued = (launch_end < before) & (gap >= 0)
        queued_counts += np.bincount(np.minimum(gap[queued], _SPACING_NS), minlength=_SPACING_NS + 1)
        counted = np.flatnonzero(bound & (gap >= 0) & (gap < max_gap_ns))
        chunk = (start[counted] - span_start) // chunk_ns
        inside = (chunk >= 0) & (chunk < n)  # as launch_bound.sql's join to the chunks
        g, chunk = gap[counted][inside], chunk[inside]
        short = g < width
        counts += np.bincount(chunk[short] * width + g[short], minlength=n * width)
        long_sum += np.bincount(chunk[~short], weights=g[~short], minlength=n).astype(np.int64)
        long_n += np.bincount(chunk[~short], minlength=n)
    spacing, queued = _median(np, queued_counts), int(queued_counts.sum())
    per_gap = counts.reshape(n, width)
    beyond = np.maximum(np.arange(width, dtype=np.int64) - spacing, 0)
    by_chunk = per_gap @ beyond + long_sum - spacing * long_n
    top = [i for i in np.argsort(-by_chunk, kind="stable")[:3] if by_chunk[i] > 0]
    worst = sorted((int(grid[i][1]), int(grid[i][2])) for i in top)
    span = sum(end - start for _, start, end, _, _ in grid)
    return LaunchWait(int(by_chunk.sum()), spacing, queued, worst, span)


def _grid(profile: Profile, pid: int, device: int, chunks: int) -> list[tuple]:
    """(chunk, chunk_start_ns, chunk_end_ns, span_start_ns, chunk_ns) of the process/device, by chunk."""
    return profile.con.execute(
        f"SELECT chunk, chunk_start_ns, chunk_end_ns, span_start_ns, chunk_ns FROM _diag.chunks({int(chunks)}) "
        f"WHERE pid = {int(pid)} AND device = {int(device)} ORDER BY chunk").fetchall()


def _median(np, counts) -> int:
    """The (lower) median of values given as counts per value; 0 when there is none."""
    n = int(counts.sum())
    return int(np.searchsorted(np.cumsum(counts), (n + 1) // 2)) if n else 0


def _slices(profile: Profile, pid: int, device: int) -> tuple[list[tuple[int, int]], bool]:
    """Time slices [lo, hi) of the process/device's span (`_diag.spans`) holding about SLICE_ROWS operations each,
    evenly cut where the cache stores _range_ops (the first and last reach beyond the span, so that no operation of
    the window falls outside), and whether it is the window's only process/device (its operations are then all the
    window's)."""
    # no bound parameters: DuckDB imports pandas (0.24 s) to look for DataFrames among them
    rows = profile.con.execute("SELECT pid, device, start_ns, end_ns, ops FROM _diag.spans").fetchall()
    mine = [r[2:] for r in rows if (r[0], r[1]) == (pid, device)]
    if not mine:
        return [], False
    lo, hi, n = mine[0]
    # where the cache does not store _range_ops it is a join over the export, which each slice would make again
    # (at 10 M kernels, 18 s more for five slices): one slice then, its memory growing with the operations
    parts = max(1, -(-n // SLICE_ROWS)) if profile.stores("_range_ops") else 1
    step = -(-(hi + 1 - lo) // parts)
    cuts = [lo + i * step for i in range(1, parts)]
    return list(zip([-_EDGES, *cuts], [*cuts, _EDGES])), len(rows) == 1
