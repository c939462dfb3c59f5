"""ranks/paths.py against a brute force: the innermost range open at each launch and its path below the step, on
random nested ranges (equal bounds, touching siblings, empty ranges, launches at the bounds)."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd

from nsys_analytics.capabilities.ranks import paths


def nested(rng: random.Random, lo: int, hi: int, depth: int, out: list, prefix: str):
    """Random ranges inside [lo, hi], nested up to `depth` levels below (empty ones and ones with their parent's bounds)."""
    t = lo
    while depth and t < hi and rng.random() < 0.8:
        s = rng.randint(t, hi)
        e = rng.randint(s, min(hi, s + (hi - lo) // 2))
        name = f"{prefix}r{len(out)}"
        out.append((s, e, name))
        nested(rng, s, e, depth - 1, out, prefix)
        t = e + rng.choice([1, 5])  # next to each other or apart (siblings do not share a nanosecond)


def brute_innermost(ranges, t):
    """The range with start <= t <= end that no other such range lies inside (latest start, then earliest end)."""
    inside = [i for i, (s, e, _n) in enumerate(ranges) if s <= t <= e]
    return max(inside, key=lambda i: (ranges[i][0], -ranges[i][1], i)) if inside else -1


def brute_path(ranges, i, step):
    """Names of the ranges holding range i (and i), from the outermost below the step."""
    s, e, _ = ranges[i]
    chain = [j for j, (sj, ej, _n) in enumerate(ranges) if sj <= s and e <= ej and j != step and
             ranges[step][0] <= sj and ej <= ranges[step][1] and (j <= i)]
    chain.sort(key=lambda j: (ranges[j][0], -ranges[j][1], j))
    return " > ".join(ranges[j][2] for j in chain)


def test_innermost_and_paths_equal_the_brute_force():
    for seed in range(40):
        rng = random.Random(seed)
        ranges = []
        for k in range(3):  # three steps, each a range holding nested phases
            s = k * 1000
            ranges.append((s, s + 900, f"step_{k}"))
            nested(rng, s + 1, s + 899, 3, ranges, f"s{k}")
        order = sorted(range(len(ranges)), key=lambda i: (ranges[i][0], -ranges[i][1], i))
        ranges = [ranges[i] for i in order]
        starts = np.array([r[0] for r in ranges], dtype=np.int64)
        ends = np.array([r[1] for r in ranges], dtype=np.int64)
        names = np.array([r[2] for r in ranges], dtype=object)
        parent = paths.parents(starts, ends)
        times = np.array(sorted({rng.randint(0, 3000) for _ in range(300)} | {int(x) for x in starts[:20]} |
                                {int(x) for x in ends[:20]}), dtype=np.int64)
        got = paths.innermost(starts, ends, parent, times)
        want = [brute_innermost(ranges, int(t)) for t in times]
        assert [ranges[i][0:2] if i >= 0 else None for i in got] == \
               [ranges[i][0:2] if i >= 0 else None for i in want], seed
        steps = pd.DataFrame({"start_ns": [r[0] for r in ranges if r[2].startswith("step_")],
                              "end_ns": [r[1] for r in ranges if r[2].startswith("step_")]})
        step_of, got_paths = paths.step_paths(starts, ends, names, parent, steps)
        step_index = [i for i, r in enumerate(ranges) if r[2].startswith("step_")]
        for i, r in enumerate(ranges):
            if r[2].startswith("step_"):
                assert got_paths[i] == "" and step_of[i] == step_index.index(i)
                continue
            step = step_index[step_of[i]]
            assert got_paths[i] == brute_path(ranges, i, step), (seed, r)


def test_prefixes():
    assert paths.prefixes("a > b > c") == ["a", "a > b", "a > b > c"]
    assert paths.prefixes("") == []
