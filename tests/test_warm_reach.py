"""Which ranges lie inside a warm-up range (sql/macros/warm_reach.sql), in every query that asks, against brute
force: two processes, step ranges, warm-up ranges that overlap, nest, share starts and ends with each other and
with steps; a range is warm-up when one warm-up range of its own process holds it whole."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import nsys_analytics as na
from nsys_analytics.capabilities.diff.data import range_kernels_sql
from nsys_analytics.capabilities.nvtx.steady import Steady, Warmup, range_instances
from nsys_analytics.data.sql_files import Relation

from .test_nvtx_attribution import Profile, Range, write_profile


def _random_profile(seed: int) -> Profile:
    rng = random.Random(seed)
    spec = Profile()
    for pid in (100, 200):
        t = 1_000
        for i in range(60):
            t += rng.randint(1, 200)
            end = t + rng.randint(1, 400)
            spec.ranges.append(Range(f"step_{i}", t, end, pid=pid))
            if rng.random() < 0.15:  # a warm-up range exactly as long as the step
                spec.ranges.append(Range("warmup", t, end, pid=pid, style="StartEnd"))
            t = end
        for _ in range(8):  # warm-up ranges that overlap and nest, some sharing a start
            a = rng.choice([rng.randint(0, t), *(r.start for r in spec.ranges[-5:])])
            spec.ranges.append(Range("warmup", a, a + rng.randint(50, 4_000), pid=pid, style="StartEnd"))
    return spec


def _warm(spec: Profile, r: Range) -> bool:
    return any(w.text == "warmup" and w.pid == r.pid and w.start <= r.start and r.end <= w.end for w in spec.ranges)


@pytest.fixture(params=[1, 2, 3])
def profile(request, tmp_path):
    spec = _random_profile(request.param)
    path = write_profile(tmp_path / "p.sqlite", spec)
    with na.open(path) as p:
        yield p, spec


def test_range_instances_and_gpu_times_mark_the_ranges_a_warm_up_holds(profile):
    p, spec = profile
    steps = [r for r in spec.ranges if r.text.startswith("step_")]
    expected = sorted((r.start, r.pid, _warm(spec, r)) for r in steps)
    assert 10 < sum(w for *_, w in expected) < len(expected) - 10
    pids = {rid: pid for rid, pid in p.sql("SELECT range_id, pid FROM _nvtx_ranges").rows}

    rows = range_instances(p, "step_*", Warmup("warmup", None, ""))
    assert sorted((start, pids[rid], warm) for rid, _, start, _, warm in rows) == expected

    params = {"after_ns": None, "attribution": "process", "ops": Relation("_op_ranges"), "range": "step_*",
              "warmup": "warmup"}
    rows = p.run_file("assignment", "range_gpu_times", params).to_records()
    assert sorted((r["start_ns"], pids[r["range_id"]], r["in_warmup"]) for r in rows) == expected


def test_steady_state_leaves_out_the_ranges_a_warm_up_holds(profile):
    p, spec = profile
    from_ns, to_ns = 3_000, 12_000
    kept = [r for r in spec.ranges if from_ns <= r.start <= to_ns and not _warm(spec, r)]
    assert 10 < len(kept) < len([r for r in spec.ranges if from_ns <= r.start <= to_ns]) - 5

    rows = p.run_file("diff", "steady_range_durations", {"from_ns": from_ns, "to_ns": to_ns,
                                                         "steady_warmup": "warmup"}).rows
    assert Counter({(n, s, d): c for n, s, d, c in rows}) == Counter((":" + r.text, r.style, r.end - r.start) for r in kept)

    # the instance rows of diff's range kernels: every kept range, with no kernel (time 0)
    steady = Steady("step_*", Warmup("warmup", None, ""), from_ns=from_ns, to_ns=to_ns)
    rows = p.sql(range_kernels_sql("range_kernels", "process", steady)).rows
    instances = Counter({(rng, style): n for rng, style, kernel, ns, n in rows if style is not None})
    assert instances == Counter((":" + r.text, r.style) for r in kept)  # no domain: ":text"
