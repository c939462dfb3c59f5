"""What a straggler's excess in its range is made of, kernel by kernel (ranks/analysis.py, _kernel_work): more
launches of a kernel than the other ranks run, or the same kernels taking longer. Hand-made per-rank rows and
hand-checked arithmetic; tests/test_ranks_truth.py checks the same against the workloads' designed matmuls."""

from __future__ import annotations

import pandas as pd
import pytest

from nsys_analytics.capabilities.ranks import analysis

MS = 1_000_000
PATH = "backward > bwd:block_3"
STEADY = [1, 2]


def rows(per_step: list[tuple[str, str, int, float]], steps=STEADY) -> pd.DataFrame:
    """One rank's range_kernels: each (path, name, kernels, ms) of every step, summed over `steps`."""
    out = [(path, name, int(ms * MS) * len(steps), n * len(steps)) for path, name, n, ms in per_step]
    df = pd.DataFrame(out, columns=["path", "name", "compute_ns", "kernels"])
    return df.astype({"path": "category", "name": "category"})


def said(work, excess: float) -> tuple[str, dict, str]:
    """The verdict's words, the finding's figures and the fix for a range's `work` and `excess`."""
    split = analysis._work_split(work, excess)
    return analysis._work_words(*split), analysis._work_figures(*split), analysis._work_fix(*split)


def timelines(straggler, *others, steps=STEADY) -> dict:
    return {r: {"range_kernels": rows(t, steps), "range_kernel_steps": tuple(steps)}
            for r, t in enumerate((straggler, *others))}


OTHERS = [(PATH, "gemm_a", 2, 4.0), (f"{PATH} > attn", "fmha_b", 1, 3.0), ("forward", "gemm_a", 5, 10.0)]


def test_more_launches_of_a_kernel_are_named_with_their_count_and_time():
    # the straggler runs 7 gemm_a a step in the range (28 ms) where the others run 2 (4 ms), and the same fmha_b
    # in a range inside it: +24 ms, all of it in 5 more gemm_a; `forward` is left out
    straggler = [(PATH, "gemm_a", 7, 28.0), (f"{PATH} > attn", "fmha_b", 1, 3.0), ("forward", "gemm_a", 5, 10.0)]
    work = analysis._kernel_work(timelines(straggler, OTHERS, OTHERS), 0, [1, 2], PATH)
    assert work.loc["gemm_a", "kernels"] == 7 and work.loc["gemm_a", "their_kernels"] == 2
    assert work.loc["gemm_a", "more"] == 5 and work.loc["gemm_a", "excess_ns"] == 24 * MS
    assert work.loc["fmha_b", "more"] == 0 and work.loc["fmha_b", "excess_ns"] == 0
    words, figures, fix = said(work, 24.0 * MS)
    assert words == ", where it runs 5 more `gemm_a` kernels per step than they do (+24.0 ms)"
    assert figures == {"kernel": "gemm_a", "more_kernels_per_step": 5.0, "kernel_excess_ns_per_step": 24.0 * MS}
    assert fix == "extra computation on that rank: it launches 5 more `gemm_a` per step there"


def test_the_same_kernels_taking_longer_are_named_as_such():
    # as many launches everywhere; the straggler's fmha_b takes 9 ms a step against 3 ms: +6 ms, no extra launch
    straggler = [(PATH, "gemm_a", 2, 4.0), (f"{PATH} > attn", "fmha_b", 1, 9.0)]
    work = analysis._kernel_work(timelines(straggler, OTHERS, OTHERS), 0, [1, 2], PATH)
    words, figures, fix = said(work, 6.0 * MS)
    assert words == ", in the same kernels as theirs taking longer: `fmha_b` +6.0 ms per step (1 a step)"
    assert figures == {"kernel": "fmha_b", "more_kernels_per_step": 0.0, "kernel_excess_ns_per_step": 6.0 * MS}
    assert fix == "data or shapes: the same kernels take longer there"


def test_the_others_median_counts_a_kernel_a_rank_lacks_as_none():
    # three other ranks: two run one extra_k a step, one none; the median is one, so the straggler's three are two more
    straggler = [(PATH, "gemm_a", 2, 4.0), (PATH, "extra_k", 3, 6.0)]
    with_one = [(PATH, "gemm_a", 2, 4.0), (PATH, "extra_k", 1, 2.0)]
    without = [(PATH, "gemm_a", 2, 4.0)]
    work = analysis._kernel_work(timelines(straggler, with_one, with_one, without), 0, [1, 2, 3], PATH)
    assert work.loc["extra_k", "their_kernels"] == 1 and work.loc["extra_k", "more"] == 2
    assert work.loc["extra_k", "excess_ns"] == 4 * MS


@pytest.mark.parametrize("excess_ms", [0.0, -3.0])
def test_no_words_without_an_excess(excess_ms):
    work = analysis._kernel_work(timelines(OTHERS, OTHERS, OTHERS), 0, [1, 2], PATH)
    assert said(work, excess_ms * MS) == ("", {}, "data, shapes, extra computation on that rank")


def test_no_words_where_neither_kind_holds_most_of_the_excess():
    # the range's excess is 10 ms, of which one extra gemm_a holds 2 ms and a slower fmha_b 2 ms: neither holds
    # half of it, and no kernel is blamed
    straggler = [(PATH, "gemm_a", 3, 6.0), (f"{PATH} > attn", "fmha_b", 1, 5.0)]
    work = analysis._kernel_work(timelines(straggler, OTHERS, OTHERS), 0, [1, 2], PATH)
    assert said(work, 10.0 * MS) == ("", {}, "data, shapes, extra computation on that rank")


def test_each_rank_is_taken_per_step_of_its_own():
    # rank 2 holds a third steady step (the others lack it): its sums are over three steps, its figures per step
    # the same as rank 1's
    straggler = [(PATH, "gemm_a", 7, 28.0)]
    t = timelines(straggler, OTHERS)
    t[2] = timelines(OTHERS, steps=(1, 2, 3))[0]
    work = analysis._kernel_work(t, 0, [1, 2], PATH)
    assert work.loc["gemm_a", "their_kernels"] == 2 and work.loc["gemm_a", "their_ns"] == 4 * MS
    t[2] = {"range_kernels": t[2]["range_kernels"], "range_kernel_steps": ()}  # no steady step: nothing compared
    assert analysis._kernel_work(t, 0, [1, 2], PATH) is None


def test_timelines_without_kernels_by_name_give_no_words():
    work = analysis._kernel_work({0: {}, 1: {}}, 0, [1], PATH)
    assert work is None and said(None, 5.0 * MS) == ("", {}, "data, shapes, extra computation on that rank")
