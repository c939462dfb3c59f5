"""`diff`'s kernel time per NVTX range (sql/diff/range_kernels.sql, by time segments) against a brute force in
Python over every (kernel, range) pair, and against range_kernels_gpu (the bucketed range join and a pick per
kernel) in the thread and process attribution: random nested stacks, start/end ranges ended on other threads,
ranges of very different lengths, launching calls that start or end on range boundaries or reach past them."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

import nsys_analytics
from nsys_analytics.capabilities.diff.data import range_kernels_sql

from .conftest import PROFILES
from .test_nvtx_attribution import multiscale_profile, random_profile, write_profile


def rows(p, name: str, mode: str) -> list[tuple]:
    query = range_kernels_sql(name, mode)
    return sorted((tuple(int(v) if isinstance(v, int) else v for v in r) for r in p.sql(query).rows), key=repr)


def brute_force(p, mode: str) -> list[tuple]:
    """Every kernel against every range of its key: the ranges holding its launching call [start, end] (inclusive
    sums per range instance, then instances counted per name, style and that sum), the one that started last, then
    ends first, then has the higher id (innermost: sums per range name and kernel)."""
    ranges = p.sql(f"SELECT k.key, k.range_id, k.start_ns, k.end_ns, n.name FROM _range_keys AS k "
                   f"JOIN _nvtx_ranges AS n USING (range_id) WHERE k.attribution = '{mode}'").rows
    by_key = defaultdict(list)
    for key, range_id, start, end, name in ranges:
        by_key[key].append((start, end, range_id, name))
    kernels = p.sql("SELECT o.launch_global_tid, o.global_pid, o.launch_start_ns, o.launch_end_ns, o.duration_ns, "
                    "s.value FROM _range_ops AS o LEFT JOIN strings AS s ON s.id = o.name_id "
                    "WHERE o.kind = 'kernel'").rows
    inclusive = defaultdict(lambda: [0, 0])
    innermost = defaultdict(lambda: [0, 0])
    for tid, pid, start, end, duration, name in kernels:
        if start is None or end is None:
            continue
        holding = [r for r in by_key[tid if mode == "thread" else pid] if r[0] <= start <= r[1] and r[1] >= end]
        for r in holding:
            inclusive[r[2]][0] += duration
            inclusive[r[2]][1] += 1
        if holding:
            inner = max(holding, key=lambda r: (r[0], -r[1], r[2]))
            innermost[(inner[3], name)][0] += duration
            innermost[(inner[3], name)][1] += 1
    per_time = defaultdict(int)  # (name, style, an instance's kernel time) -> instances
    for range_id, name, style in p.sql("SELECT range_id, name, style FROM _nvtx_ranges").rows:
        per_time[(name, style, inclusive[range_id][0] if range_id in inclusive else 0)] += 1
    out = [(name, style, None, ns, n) for (name, style, ns), n in per_time.items()]
    out += [(rng, None, kernel, ns, n) for (rng, kernel), (ns, n) in innermost.items()]
    return sorted(out, key=repr)


def crossing_calls(p, mode: str) -> int:
    """Launching calls that start inside a range of their key and end after a range boundary of it: the path
    of range_kernels that picks ranges one by one."""
    key = "launch_global_tid" if mode == "thread" else "global_pid"
    return p.sql(f"""
        SELECT count(DISTINCT o.op_id) FROM _range_ops AS o JOIN _range_keys AS k
          ON k.attribution = '{mode}' AND k.key = o.{key}
         AND ((o.launch_start_ns < k.start_ns AND k.start_ns <= o.launch_end_ns)
           OR (o.launch_start_ns <= k.end_ns AND k.end_ns < o.launch_end_ns))
        WHERE o.kind = 'kernel'""").rows[0][0]


@pytest.mark.parametrize(("make", "seed"), [(random_profile, s) for s in range(6)]
                         + [(multiscale_profile, s) for s in range(4)])
def test_range_kernels_equal_a_brute_force(tmp_path, make, seed):
    path = write_profile(tmp_path / "p.sqlite", make(random.Random(seed)))
    with nsys_analytics.open(path) as p:
        for mode in ("thread", "process"):
            assert crossing_calls(p, mode) > 0  # the one-by-one path is exercised too
            expected = brute_force(p, mode)
            assert len(expected) > 10
            assert rows(p, "range_kernels", mode) == expected
            assert rows(p, "range_kernels_gpu", mode) == expected


@pytest.mark.parametrize("name", ["gpt_train", "gpt_sdpa_train", "graphs_node", "copies_streams_graph"])
def test_range_kernels_equal_the_range_join_on_fixtures(name):
    with nsys_analytics.open(PROFILES / f"{name}.sqlite") as p:
        for mode in ("thread", "process"):
            new = rows(p, "range_kernels", mode)
            assert new and new == rows(p, "range_kernels_gpu", mode)
