"""Step ranges and step phases (sql/ranks/step_ranges.sql, step_phases.sql) against their definitions computed
pair by pair in Python, on random NVTX ranges: nesting, ranges on other threads, repeated and renamed intervals,
zero-length ranges, steps that overlap or touch (the phases' every-pair path) and disjoint steps (its ASOF path);
and the streamed step GPU time against a brute-force union, batch borders anywhere."""

from __future__ import annotations

import random
import re

import numpy as np
import pandas as pd
import pytest

from nsys_analytics.data import sql_files
from nsys_analytics.data.profile import Profile
from nsys_analytics.capabilities.ranks import intervals

from .test_nvtx_attribution import PID, Profile as Spec, Range, write_profile
from .test_ranks import _union_ns

STEP_NAME = re.compile(r"(^|[^A-Za-z])(step|iteration|iter)[ _#-]?[0-9]+$", re.IGNORECASE)


def _random_ranges(rng: random.Random) -> list[Range]:
    ranges = []
    t = 0
    for k in range(rng.randint(3, 7)):  # steps, some nested in an outer iteration, some with twins
        start, end = t + rng.randint(0, 3), t + rng.randint(40, 60)
        ranges.append(Range(f"step_{k}", start, end, tid=rng.choice([1, 2])))
        if rng.random() < 0.3:
            ranges.append(Range(f"iter{k}", start - rng.randint(0, 2), end + rng.randint(0, 2)))
        cursor = start
        for _ in range(rng.randint(0, 6)):  # phases, nested and overlapping, on any thread
            a = rng.randint(cursor, end)
            b = rng.choice([a, a + rng.randint(0, 15), end])
            name = rng.choice(["data", "forward", "backward", "optimizer_step"])
            ranges.append(Range(name, a, min(b, end + rng.choice([0, 0, 3])), tid=rng.choice([1, 1, 2, 3])))
            if rng.random() < 0.2:  # the same interval again, with the same or another name
                ranges.append(Range(rng.choice([name, "other"]), a, min(b, end), tid=rng.choice([1, 2])))
            cursor = a
        t = end + rng.choice([0, 1, 5])  # steps may touch
    return ranges


def _steps_by_definition(ranges: list[Range]) -> list[tuple[str, int, int]]:
    named = [r for r in ranges if r.end is not None and STEP_NAME.search(r.text)]
    inner = [o for o in named if not any(i.start >= o.start and i.end <= o.end and (i.start, i.end) != (o.start, o.end)
                                         for i in named)]
    return sorted((o.text, o.start, o.end) for o in inner)


def _phases_by_definition(ranges: list[Range], steps: pd.DataFrame) -> dict:
    out: dict = {}
    for s in steps.itertuples():
        inside = [r for r in ranges if r.end is not None and r.start >= s.start_ns and r.end <= s.end_ns
                  and (r.start, r.end) != (s.start_ns, s.end_ns)]
        for o in inside:
            if any(i.start <= o.start and i.end >= o.end and (i.start, i.end, i.text) != (o.start, o.end, o.text)
                   for i in inside):
                continue
            d, n = out.get((s.step, o.text), (0, 0))
            out[(s.step, o.text)] = (d + o.end - o.start, n + 1)
    return out


def _run(p, name: str) -> pd.DataFrame:
    return p.sql(sql_files.read("ranks", name).text).to_pandas()


@pytest.mark.parametrize("seed", range(40))
def test_steps_and_phases_equal_their_definitions(seed, tmp_path):
    rng = random.Random(seed)
    ranges = _random_ranges(rng)
    path = write_profile(tmp_path / "p.sqlite", Spec(ranges=ranges))
    with Profile(str(path)) as p:
        steps = _run(p, "step_ranges")
        assert sorted(zip(steps["name"], steps["start_ns"], steps["end_ns"])) == _steps_by_definition(ranges)
        # the phases of these steps (disjoint or touching), then of steps made to overlap
        mine = [steps[["step", "start_ns", "end_ns", "pid"]]]
        if len(steps) >= 2:
            overlapping = steps[["step", "start_ns", "end_ns", "pid"]].copy()
            overlapping["end_ns"] = overlapping["end_ns"] + rng.choice([5, 30])
            mine.append(overlapping)
        for table in mine:
            p.con.register("steps", table)
            got = {(r.step, r.name): (r.duration_ns, r.instances) for r in _run(p, "step_phases").itertuples()}
            assert got == _phases_by_definition(ranges, table)
            p.con.unregister("steps")


def test_steps_of_a_fixture_profile_are_disjoint_and_take_the_asof_path(tmp_path):
    """The usual case the ASOF join serves: steps one after another, each phase in the one step around it."""
    ranges = [Range(f"step_{k}", 100 * k, 100 * k + 90) for k in range(3)] + \
        [Range(n, 100 * k + a, 100 * k + b) for k in range(3) for n, a, b in (("forward", 5, 40), ("backward", 41, 80))]
    path = write_profile(tmp_path / "p.sqlite", Spec(ranges=ranges))
    with Profile(str(path)) as p:
        steps = _run(p, "step_ranges")
        p.con.register("steps", steps)
        phases = _run(p, "step_phases")
    assert list(steps["start_ns"]) == [0, 100, 200] and list(steps["pid"]) == [PID] * 3
    assert phases.values.tolist() == [[k, n, d, 1] for k in range(3) for n, d in (("backward", 39), ("forward", 35))]


@pytest.mark.parametrize("seed", range(20))
def test_streamed_step_gpu_time_equals_a_brute_force_union(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    starts = np.sort(rng.integers(0, 5_000, n))
    ends = starts + rng.integers(0, 300, n)
    is_kernel = rng.random(n) < 0.8
    is_comm = is_kernel & (rng.random(n) < 0.3)
    lo = np.sort(rng.integers(0, 5_000, 6))
    hi = lo + rng.integers(1, 2_000, 6)
    cuts = np.sort(rng.choice(np.arange(n + 1), size=min(n + 1, 5), replace=False))
    batches = [{"start_ns": starts[a:b], "end_ns": ends[a:b], "is_kernel": is_kernel[a:b], "is_comm": is_comm[a:b]}
               for a, b in zip(np.r_[0, cuts], np.r_[cuts, n])]
    got = intervals.step_gpu_time(batches, lo, hi)
    ops = list(zip(starts.tolist(), ends.tolist()))
    pick = lambda mask: [o for o, m in zip(ops, mask) if m]  # noqa: E731
    for w in range(len(lo)):
        busy = _union_ns(ops, lo[w], hi[w])
        comp = _union_ns(pick(is_kernel & ~is_comm), lo[w], hi[w])
        comm = _union_ns(pick(is_comm), lo[w], hi[w])
        assert got["gpu_busy_ns"][w] == busy
        assert got["compute_ns"][w] == comp and got["comm_ns"][w] == comm
        assert got["overlap_ns"][w] == comm + comp - _union_ns(pick(is_kernel), lo[w], hi[w])
