"""diagnose's one pass (diagnose/sweep.py) against brute force on a profile of many overlapping operations, read in
batches of 2,048 and time slices of about 3,000 so that the state carried from batch to batch and slice to slice
is exercised."""

from __future__ import annotations

import random

import pytest

import nsys_analytics
from nsys_analytics.capabilities.diagnose import data, sweep
from .test_diagnose_rules import write_profile


def merged(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of intervals as disjoint ones, in order."""
    out: list[list[int]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def union_before(islands: list[tuple[int, int]], t: int) -> int:
    """Time before t covered by the islands: the clipped length of each, summed (brute force)."""
    return sum(max(0, min(t, e) - s) for s, e in islands)


@pytest.mark.parametrize("seed", [17, 18, 19])
def test_sweep_matches_brute_force(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    starts = rng.sample(range(1_000, 100_000_000), 9_000)  # distinct starts: the op after a gap is then unique
    kernels = [(s, s + rng.choice([50, 400, 3_000, 30_000]), rng.randrange(3), i + 1) for i, s in enumerate(starts)]
    taken = set(starts)
    copy_starts = [s for s in rng.sample(range(1_000, 100_000_000), 700) if s not in taken][:600]
    copies = [(s, s + rng.choice([100, 5_000, 80_000]), 9, 20_000 + i, rng.choice([1, 2, 8]), 0, 1)
              for i, s in enumerate(copy_starts)]
    path = write_profile(tmp_path / "p.sqlite", kernels, [], copies)
    monkeypatch.setattr(sweep, "BATCH_ROWS", 2_048)
    monkeypatch.setattr(sweep, "SLICE_ROWS", 3_000)
    monkeypatch.setattr(sweep, "_STORE_ROWS", 1_000)  # the tables written in batches, each appended
    with nsys_analytics.open(path) as p:
        data.prepare(p, data.Window(), True, min_gap_ns=1, chunks=7)
        gaps = set(p.sql("SELECT g.start_ns, g.end_ns, o.correlation_id FROM _diag.gaps AS g "
                          "JOIN _diag.gpu_ops AS o ON o.op_key = g.op_key").rows)  # the gap's operation
        busy = {(k, t): b for k, t, b in p.sql("SELECT kernels, t, busy_ns FROM _diag.busy_at").rows}
        asked = p.sql("SELECT kernels, t FROM (SELECT true AS kernels, start_ns AS t FROM _diag.copies UNION "
                      "SELECT true, end_ns FROM _diag.copies UNION SELECT false, chunk_start_ns FROM "
                      "_diag.chunks(7) UNION SELECT false, chunk_end_ns FROM _diag.chunks(7))").rows

    ops = sorted([(s, e, c) for s, e, _, c in kernels] + [(s, e, c) for s, e, _, c, *_ in copies])
    expected_gaps, latest = set(), None
    for s, e, c in ops:
        if latest is not None and s - latest >= 1:
            expected_gaps.add((latest, s, c))
        latest = e if latest is None else max(latest, e)
    assert len(expected_gaps) > 3_000
    assert gaps == expected_gaps

    kernel_islands = merged([(s, e) for s, e, _, _ in kernels])
    all_islands = merged([(s, e) for s, e, _ in ops])
    assert len(asked) > 500 and set(busy) == set(asked)
    for kernels_only, t in asked:
        assert busy[(kernels_only, t)] == union_before(kernel_islands if kernels_only else all_islands, t)


def test_sweep_keeps_processes_and_devices_apart(tmp_path, monkeypatch):
    """Operations of two processes on three devices, interleaved in time: each process/device gets its own gaps
    (brute force per process/device), also when a time slice holds several of them and numpy sorts by all three
    keys."""
    import sqlite3

    rng = random.Random(5)
    starts = rng.sample(range(1_000, 50_000_000), 6_000)
    kernels = [(s, s + rng.choice([50, 400, 3_000, 30_000]), rng.randrange(3), i + 1) for i, s in enumerate(starts)]
    path = write_profile(tmp_path / "p.sqlite", kernels, [])
    other_pid = 200
    con = sqlite3.connect(path)  # every third kernel belongs to another process
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = ? WHERE correlationId % 3 = 0", (other_pid << 24,))
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = (correlationId / 3) % 3")
    con.commit()
    con.close()
    monkeypatch.setattr(sweep, "BATCH_ROWS", 1_000)
    monkeypatch.setattr(sweep, "SLICE_ROWS", 2_500)
    with nsys_analytics.open(path) as p:
        data.prepare(p, data.Window(), True, min_gap_ns=1, chunks=7)
        gaps = set(p.sql("SELECT g.pid, g.device, g.start_ns, g.end_ns, o.correlation_id FROM _diag.gaps AS g "
                          "JOIN _diag.gpu_ops AS o ON o.op_key = g.op_key").rows)

    expected, latest = set(), {}
    for s, e, _, c in sorted(kernels):
        key = (other_pid if c % 3 == 0 else 100, (c // 3) % 3)
        if key in latest and s - latest[key] >= 1:
            expected.add((*key, latest[key], s, c))
        latest[key] = e if key not in latest else max(latest[key], e)
    assert len({g[:2] for g in expected}) == 6 and len(expected) > 1_000
    assert gaps == expected
