"""The `ranks` capability: step GPU time against a brute-force union of intervals, collective waits by hand, and
the straggler verdicts on the DDP fixtures (where present)."""

from __future__ import annotations

import sqlite3

import pandas as pd

from nsys_analytics.data.engine import Sequential
from nsys_analytics.data.profile_set import ProfileSet
from nsys_analytics.capabilities.ranks import analysis, data

from .conftest import PROFILES

TRAIN = PROFILES / "gpt_train.sqlite"


def _union_ns(intervals, lo, hi) -> int:
    """Length of the union of [s, e) clipped to [lo, hi), by sweeping sorted intervals (the reference)."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted((max(s, lo), min(e, hi)) for s, e in intervals if e > lo and s < hi and e > s):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + ((cur_e - cur_s) if cur_e is not None else 0)


def test_step_gpu_time_equals_a_brute_force_union():
    member = ProfileSet([str(TRAIN)], engine=Sequential()).members[0]
    t = data.step_timeline(member)
    con = sqlite3.connect(f"file:{TRAIN}?mode=ro", uri=True)
    kernels = con.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    ops = kernels + con.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY").fetchall() + \
        con.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchall()
    con.close()
    steps = t["steps"].merge(t["gpu"], on="step")
    assert len(steps) == 3
    for row in steps.itertuples():
        assert row.gpu_busy_ns == _union_ns(ops, row.start_ns, row.gpu_end_ns)
        assert row.compute_ns == _union_ns(kernels, row.start_ns, row.gpu_end_ns)  # no NCCL kernels here
        assert row.comm_ns == 0 and row.overlap_ns == 0
    # GPU windows: each step's reaches the next step's start; the last one ends at or after its CPU end
    assert list(steps["gpu_end_ns"][:-1]) == list(steps["start_ns"][1:])
    assert steps["gpu_end_ns"].iloc[-1] >= steps["end_ns"].iloc[-1]


def _ops(rows):
    return pd.DataFrame(rows, columns=["start_ns", "end_ns", "name", "op", "stream"])


def test_waits_by_hand():
    """Two ranks, two AllReduces. #0: rank 0 starts at 100 and rank 1 at 130 -> rank 0 waits 30 (its kernel
    lasts 50, so the bound does not bite); #1: rank 1 starts at 300, rank 0 at 310 -> rank 1 waits 10, but its
    kernel lasts only 8 -> 8."""
    ar = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    nccl = {0: _ops([(100, 150, ar, "AllReduce", 7), (310, 330, ar, "AllReduce", 7)]),
            1: _ops([(130, 152, ar, "AllReduce", 9), (300, 308, ar, "AllReduce", 9)])}
    m, notes = analysis.match_collectives(nccl)
    got = {(r.rank, r.ordinal): (r.wait_ns, r.last_rank) for r in m.itertuples()}
    assert got == {(0, 0): (30, 1), (1, 0): (0, 1), (0, 1): (0, 0), (1, 1): (8, 0)}
    assert notes == []


def test_unmatched_collectives_are_left_out_and_said():
    ar = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    nccl = {0: _ops([(100, 150, ar, "AllReduce", 7), (200, 250, ar, "AllReduce", 7)]),
            1: _ops([(130, 152, ar, "AllReduce", 9)])}
    m, notes = analysis.match_collectives(nccl)
    assert set(m["ordinal"]) == {0} and "1 NCCL kernels have no counterpart" in notes[0]


def test_repetition_steps_find_the_period_of_the_collectives():
    """Without NVTX steps: 3 AllReduces per step (one name, uneven spacing) and a Broadcast between steps; the
    detected period is one step (4 ops), not one AllReduce."""
    rows, t = [], 0
    for step in range(5):
        for gap in (0, 2_000, 7_000):
            rows.append((t + gap, t + gap + 500, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "AllReduce", 7))
        rows.append((t + 9_000, t + 9_400, "ncclDevKernel_Broadcast_RING_LL", "Broadcast", 7))
        t += 20_000
    ops = _ops(rows).assign(pid=1)
    steps = data.repetition_steps(ops)
    assert list(steps["start_ns"]) == [0, 20_000, 40_000, 60_000]
    assert list(steps["end_ns"]) == [20_000, 40_000, 60_000, 80_000]
