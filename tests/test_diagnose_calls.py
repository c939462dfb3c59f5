"""The rules that read the CUDA call behind a GPU operation, against brute force: launch_bound's per-chunk figures
(sql/diagnose/launch_bound.sql, which reads each kernel's launching call from _range_ops) and gpu_starved's gaps
(sql/diagnose/gpu_starved.sql). Random kernels of two processes on two devices, launched by kernel launches, graph
launches, other calls or no traced call, some outside the time window."""

from __future__ import annotations

import math
import random
import sqlite3

import pytest

import nsys_analytics
from nsys_analytics.capabilities.diagnose import data, starved
from .test_diagnose_rules import write_profile

OTHER_PID = 200
NAMES = {2: "cudaLaunchKernel_v7000", 3: "cudaMemcpyAsync_v3020", 4: "cudaGraphLaunch_v10000", 5: "cuLaunchKernel"}
SHORT_NS, CHUNKS = 3_000, 7
LONG_NS = 10_000  # launch calls of 20 us: over it, left out of the excess and counted apart


def _profile(tmp_path):
    rng = random.Random(11)
    kernels, calls, owner = [], [], {}
    for corr, start in enumerate(rng.sample(range(10_000, 40_000_000), 4_000), start=1):
        kernels.append((start, start + rng.choice([500, 2_000, 2_900, 3_000, 9_000, 40_000]), rng.randrange(3), corr))
        name = rng.choice([2, 2, 5, 3, 4, None])  # None: the launch call is not traced
        if name is not None:
            call_start = start - rng.randrange(100, 50_000)
            calls.append((call_start, call_start + rng.choice([1_000, 2_500, 5_000, 20_000]), corr, name))
        owner[corr] = (OTHER_PID if corr % 3 == 0 else 100, (corr // 3) % 2)
    path = write_profile(tmp_path / "p.sqlite", kernels, calls)
    con = sqlite3.connect(path)
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, n) for i, n in NAMES.items() if i > 3])
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = ? WHERE correlationId % 3 = 0", (OTHER_PID << 24,))
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = ? WHERE correlationId % 3 = 0",
                ((OTHER_PID << 24) + OTHER_PID,))
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = (correlationId / 3) % 2")
    con.commit()
    con.close()
    return path, kernels, {c: (s, e, n) for s, e, c, n in calls}, owner


def _expected(kernels, calls, owner, window):
    """Per (pid, device, chunk start, chunk end): the sums of launch_bound.sql, one kernel at a time."""
    lo, hi = window
    kept = [k for k in kernels if (lo <= k[0] < hi) or (lo <= k[1] < hi) or (k[0] < lo and k[1] >= hi)]
    out = {}
    for key in {owner[c] for *_, c in kept}:
        mine = [k for k in kept if owner[k[3]] == key]
        span_start, span_end = min(k[0] for k in mine), max(k[1] for k in mine)
        chunk_ns = math.ceil((span_end - span_start) / CHUNKS)
        for start, end, _, corr in mine:
            i = (start - span_start) // chunk_ns
            row = out.setdefault((*key, span_start + i * chunk_ns, min(span_start + (i + 1) * chunk_ns, span_end)),
                                 [0] * 8)
            duration = end - start
            call = calls.get(corr)
            launch_ns = call[1] - call[0] if call and NAMES[call[2]] in ("cudaLaunchKernel_v7000", "cuLaunchKernel") \
                else None
            row[0] += 1
            row[1] += duration
            row[2] += duration < SHORT_NS
            row[3] += duration if duration < SHORT_NS else 0
            row[4] += launch_ns is not None
            overhead = launch_ns is not None and duration < launch_ns <= LONG_NS
            row[5] += overhead
            row[6] += launch_ns - duration if overhead else 0
            row[7] += launch_ns is not None and launch_ns > LONG_NS
    return {k: tuple(v) for k, v in out.items()}


def test_launch_bound_matches_brute_force(tmp_path):
    path, kernels, calls, owner = _profile(tmp_path)
    for window in ((0, data.END_OF_TIME_NS), (9_000_000, 27_000_000)):
        with nsys_analytics.open(path) as p:
            data.prepare(p, data.Window(*window), True, min_gap_ns=1, chunks=CHUNKS)
            rows = p.run_file("diagnose", "launch_bound", {"short_ns": SHORT_NS, "chunks": CHUNKS,
                                                           "long_launch_ns": LONG_NS,
                                                           "from_ns": window[0], "to_ns": window[1]}).rows
        got = {tuple(r[:4]): tuple(r[4:]) for r in rows}
        expected = _expected(kernels, calls, owner, window)
        assert len({k[:2] for k in expected}) == 4 and sum(v[5] for v in expected.values()) > 100
        assert sum(v[7] for v in expected.values()) > 100  # long launches there are, and left out
        assert got == expected


@pytest.mark.parametrize("slice_gaps", [None, 40])
def test_gpu_starved_matches_brute_force(tmp_path, monkeypatch, slice_gaps):
    """Read directly (one join), and through the cache in slices of 40 gaps (starved.py): the same figures."""
    path, kernels, calls, owner = _profile(tmp_path)
    min_gap = 2_000
    if slice_gaps:
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
        monkeypatch.setattr(starved, "SLICE_GAPS", slice_gaps)
    with nsys_analytics.open(path) as p:
        data.prepare(p, data.Window(), True, min_gap_ns=min_gap, chunks=CHUNKS)
        rows = starved.starved_rows(p, min_gap)
        assert p.stores("_range_ops") == bool(slice_gaps)
        if slice_gaps:
            assert len(starved._slices(p, min_gap)) > 20
    got = {(r["pid"], r["device"]): (r["starved_ns"], r["starved_gaps"], r["pending_ns"],
                                     sorted(tuple(w) for w in r["worst"] or [])) for r in rows}

    expected = {}
    for key in set(owner.values()):
        latest, late_gaps, pending = None, [], 0
        for start, end, _, corr in sorted(k for k in kernels if owner[k[3]] == key):
            if latest is not None and start - latest >= min_gap and corr in calls:
                if calls[corr][0] > latest:
                    late_gaps.append((start - latest, -latest, start))
                else:
                    pending += start - latest
            latest = end if latest is None else max(latest, end)
        worst = sorted((-neg, s) for _, neg, s in sorted(late_gaps, reverse=True)[:3])
        expected[key] = (sum(g for g, _, _ in late_gaps), len(late_gaps), pending, worst)
    assert all(v[1] > 20 and v[2] > 0 for v in expected.values())
    assert got == expected


def test_launch_bound_leaves_out_launch_calls_that_are_no_launch_overhead():
    """copies_streams_graph (fixtures/workloads/copies_streams_graph.py) launches 300 tiny kernels in `tiny_kernels`;
    its first launches of each kernel (in `two_streams`, before) take milliseconds loading their modules. Those
    made the finding's 23 ms at stake and put its worst windows outside tiny_kernels. Read with sqlite3 alone: the
    launch calls over 100 us, and the tiny_kernels range; the finding's worst window now holds that range."""
    from .conftest import PROFILES

    path = PROFILES / "copies_streams_graph.sqlite"
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    long_ns = con.execute("SELECT sum(r.\"end\" - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN StringIds AS s "
                          "ON s.id = r.nameId WHERE s.value LIKE 'cudaLaunchKernel%' AND r.\"end\" - r.start > 100000"
                          ).fetchone()[0]
    tiny = con.execute("SELECT e.start, e.\"end\" FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
                       "WHERE coalesce(e.text, s.value) = 'tiny_kernels'").fetchone()
    con.close()
    with nsys_analytics.open(path) as p:
        from nsys_analytics.capabilities.diagnose.report import diagnose

        finding = next(f for f in diagnose(p, ("launch_bound",), scope="all").findings)
    assert long_ns > 10_000_000 and finding.at_stake_ns < 5_000_000 < long_ns
    assert any(w[0] <= tiny[0] < w[1] or tiny[0] <= w[0] < tiny[1] for w in finding.windows)
    assert "launch calls over 100 us left out" in finding.summary
