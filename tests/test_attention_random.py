"""`attention` on random profiles against a brute-force reference: two processes, overlapping and nested warm-up
ranges (an instance is warm-up when one warm-up range of its process holds it whole), kernels launched inside
and between the sub-ranges by two threads, mask kernels, GPU executions that overlap several sub-ranges (gpu
attribution: the earliest sub-range takes the kernel); one nested pair of attention calls."""

from __future__ import annotations

import random
import re

import pytest

import nsys_analytics as na
from nsys_analytics.capabilities.attention.report import AttentionOptions, DEFAULT_MASK_REGEX, analyze_attention

from .test_nvtx_attribution import Launch, Profile, Range, write_profile

SUBS = {"computing_attention_scores": "scores", "computing_softmax": "softmax", "final_matmul": "output"}
NAMES = ("gemm", "softmax_kernel", "masked_fill_kernel", "copy_kernel")


def _random_profile(seed: int) -> Profile:
    rng = random.Random(seed)
    spec = Profile()
    for pid in (100, 200):
        t = 1_000
        for _ in range(40):
            t += rng.randint(1, 300)
            start = t
            for sub in SUBS:
                t += rng.randint(1, 50)
                sub_start = t
                for _ in range(rng.randint(0, 3)):
                    t += rng.randint(1, 20)
                    spec.launches.append(_launch(rng, pid, t))
                t += rng.randint(10, 40)
                spec.ranges.append(Range(sub, sub_start, t, pid=pid))
                if rng.random() < 0.3:  # a launch between the sub-ranges: 'other kernels'
                    t += rng.randint(1, 20)
                    spec.launches.append(_launch(rng, pid, t))
            t += rng.randint(10, 40)
            spec.ranges.append(Range("scaled_dot_product_attention", start, t, pid=pid))
        for _ in range(6):  # warm-up ranges that overlap and nest
            a = rng.randint(0, t)
            spec.ranges.append(Range("warmup", a, a + rng.randint(100, 3_000), pid=pid, style="StartEnd"))
    # one attention call inside another: the nested path of the query
    spec.ranges += [Range("scaled_dot_product_attention", 50, 900), Range("scaled_dot_product_attention", 100, 400),
                    Range("computing_softmax", 200, 300)]
    spec.launches.append(Launch(250, 255, [(260, 290)], "softmax_kernel"))
    return spec


def _launch(rng: random.Random, pid: int, t: int) -> Launch:
    gpu = t + rng.randint(1, 100)
    return Launch(t, t + 5, [(gpu, gpu + rng.randint(1, 500))], rng.choice(NAMES), tid=rng.choice((1, 2)), pid=pid)


def _brute_force(spec: Profile, mode: str) -> list[tuple]:
    """(start, warm-up, {piece: ns}) of every attention instance, in start order: a kernel is in a range when its
    launch lies inside it (mode 'process', any thread) or its GPU execution overlaps it (mode 'gpu')."""
    holds = _holds if mode == "process" else _overlaps
    attn = sorted((r for r in spec.ranges if r.text == "scaled_dot_product_attention"), key=lambda r: r.start)
    out = []
    for a in attn:
        warm = any(w.text == "warmup" and w.pid == a.pid and w.start <= a.start and a.end <= w.end
                   for w in spec.ranges)
        subs = sorted((s for s in spec.ranges if s.text in SUBS and s.pid == a.pid and a.start <= s.start
                       and s.end <= a.end), key=lambda s: s.start)
        times = dict.fromkeys(("scores", "mask", "softmax", "output", "unassigned"), 0)
        for k in spec.launches:
            if k.pid != a.pid or not holds(a, k):
                continue
            sub = next((s for s in subs if holds(s, k)), None)
            piece = ("unassigned" if sub is None else
                     "mask" if re.search(DEFAULT_MASK_REGEX, k.name) else SUBS[sub.text])
            times[piece] += sum(e - s for s, e in k.gpu)
        out.append((a.start, warm, times))
    return out


def _holds(r: Range, k: Launch) -> bool:
    return r.start <= k.start and k.end <= r.end


def _overlaps(r: Range, k: Launch) -> bool:
    return any(r.start <= e and s <= r.end for s, e in k.gpu)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("mode", ["process", "gpu"])
def test_pieces_and_warmup_match_brute_force(tmp_path, seed, mode):
    spec = _random_profile(seed)
    with na.open(write_profile(tmp_path / f"r{seed}.sqlite", spec)) as p:
        a = analyze_attention(p, AttentionOptions(attribution=mode))
    want = _brute_force(spec, mode)
    got = a.instances.to_records()
    assert [(r["start_ns"], r["warmup"]) for r in got] == [(s, w) for s, w, _ in want]
    assert 0 < sum(w for _, w, _ in want) < len(want)
    for r, (_, _, times) in zip(got, want):
        assert {p: r[f"{p}_ns"] for p in times} == times
    for piece in ("scores", "mask", "softmax", "output", "unassigned"):
        assert a.piece_time_ns[piece] == sum(t[piece] for _, warm, t in want if not warm)
