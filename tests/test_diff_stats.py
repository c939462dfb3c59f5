"""The rank test and the distribution arithmetic behind `diff`, against brute force and hand-computed values."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from itertools import combinations

import pytest

from nsys_analytics.capabilities.diff.report import build_diff
from nsys_analytics.capabilities.diff.stats import MAX_EXACT, Dist, benjamini_hochberg, mann_whitney
from nsys_analytics.capabilities.diff.summary import KernelStat, ProfileSummary, Stat


def _u(base, new):
    """U by definition: pairs where the new value is larger, ties count 1/2."""
    return sum((y > x) + 0.5 * (y == x) for x in base for y in new)


def _brute_exact_p(base, new):
    """Two-sided permutation p-value by enumerating every split of the pooled values (no ties)."""
    pooled, n1 = list(base) + list(new), len(base)
    observed = _u(base, new)
    us = []
    for idx in combinations(range(len(pooled)), n1):
        chosen = set(idx)
        us.append(_u([pooled[i] for i in chosen], [pooled[i] for i in range(len(pooled)) if i not in chosen]))
    lower = sum(u <= observed for u in us) / len(us)
    upper = sum(u >= observed for u in us) / len(us)
    return min(1.0, 2 * min(lower, upper))


def _dist(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return Dist.of(counts)


@pytest.mark.parametrize("base,new", [
    ([1, 2, 3], [4, 5, 6]),
    ([15, 20, 30, 80], [40, 50, 65, 70, 10]),
    ([7, 3, 9, 1, 12], [2, 8, 4, 11, 6, 5]),
    ([100], [101, 99]),
])
def test_exact_p_equals_brute_force_enumeration(base, new):
    test = mann_whitney(_dist(base), _dist(new))
    assert test.method == "exact"
    assert test.u == _u(base, new)
    assert test.p_value == pytest.approx(_brute_exact_p(base, new), abs=1e-12)


def test_three_against_three_can_never_be_below_0_1():
    # all three new below all three base: U = 0, P(U = 0) = 1/C(6,3) = 1/20, two-sided 0.1
    test = mann_whitney(_dist([4, 5, 6]), _dist([1, 2, 3]))
    assert test.u == 0 and test.p_value == pytest.approx(0.1) and test.min_p == pytest.approx(0.1)


def test_normal_approximation_with_ties_hand_computed():
    # base 1,2,2,3 ; new 2,3,3,4,5 (ties: value 2 three times, value 3 three times)
    # U(new > base) = new 2: 1 + 2*0.5 = 2 ; new 3 (x2): 3 + 0.5 = 3.5 each -> 7 ; new 4, 5: 4 each -> 8 ; U = 17
    # n1 = 4, n2 = 5, N = 9, mean = 10, ties: 2 -> t = 3, 3 -> t = 3: sum(t^3 - t) = 48
    # var = 20/12 * (10 - 48/72) = 15.5556, z = (|17 - 10| - 0.5) / sqrt(15.5556) = 1.64805, p = erfc(z/sqrt 2)
    test = mann_whitney(_dist([1, 2, 2, 3]), _dist([2, 3, 3, 4, 5]))
    assert test.method == "normal" and test.u == 17
    z = 6.5 / math.sqrt(20 / 12 * (10 - 48 / 72))
    assert z == pytest.approx(1.64805, abs=1e-5)
    assert test.p_value == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert test.p_value == pytest.approx(0.09934, abs=1e-4)


def test_identical_samples_are_not_different():
    d = _dist([5, 6, 7, 8] * 30)
    assert mann_whitney(d, d).p_value == pytest.approx(1.0)


def test_stat_equals_the_statistics_module():
    values = [5, 7, 7, 9, 12, 12, 12, 40, 3, 8]
    s = Stat.of({v: values.count(v) for v in set(values)})
    assert (s.instances, s.total_ns, s.min_ns, s.max_ns) == (10, sum(values), 3, 40)
    assert s.med_ns == statistics.median(values)
    assert s.stddev_ns == pytest.approx(statistics.stdev(values))
    assert s.avg_ns == pytest.approx(statistics.mean(values))


def test_many_distinct_values_are_binned_and_merge_exactly_in_counts():
    values = {1000 + 3 * i: 1 for i in range(MAX_EXACT + 10)}
    d = Dist.of(values)
    assert d.binned and d.n == MAX_EXACT + 10
    assert len(d.values) < MAX_EXACT
    merged = Dist.merge([d, _dist([1000, 2000])])
    assert merged.binned and merged.n == MAX_EXACT + 12
    # bins are 0.5 % wide: the test still sees a 10 % shift
    shifted = Dist.of({round(v * 1.1): c for v, c in values.items()})
    assert mann_whitney(d, shifted).p_value < 1e-6


# -- many kernels at once: Benjamini-Hochberg --------------------------------------------------------------------

def test_benjamini_hochberg_by_hand():
    # sorted: 0.005 (rank 1), 0.01 (2), 0.03 (3), 0.04 (4); m * p / rank = 0.02, 0.02, 0.04, 0.04; running minimum
    # from the top: 0.04, 0.04, 0.02, 0.02
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # 2 * 0.5 / 1 = 1.0 is lowered to the next rank's 2 * 0.9 / 2 = 0.9; never above 1
    assert benjamini_hochberg([0.5, 0.9]) == pytest.approx([0.9, 0.9])
    assert benjamini_hochberg([0.8]) == [0.8] and benjamini_hochberg([]) == []


def test_benjamini_hochberg_equals_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    import random

    rng = random.Random(14)
    for m in (1, 2, 7, 50, 400):
        ps = [rng.random() ** 3 for _ in range(m)] + [0.02] * (m // 5)  # small ones and ties
        assert benjamini_hochberg(ps) == pytest.approx(list(scipy_stats.false_discovery_control(ps, method="bh")))


def _summary(label: str, kernels: dict[str, list[int]]) -> ProfileSummary:
    stats = [KernelStat("demangled", name, "other", Stat.of(dict.fromkeys(durations, 1)))
             for name, durations in kernels.items()]
    return ProfileSummary(f"{label}.sqlite", label, 0, kernels=stats)


def test_many_kernels_are_judged_after_the_correction():
    """Eleven kernels of 10 vs 10 instances: one shifted far (exact p = 2/C(20,10) = 1.08e-5), three shifted a
    little (p = 0.0288 each, below 0.05 alone), seven barely. By hand: q = 11 * p / rank over the 11 tests, the
    running minimum from the largest p down: the far one 11 * 1.08e-5 / 1, the three 11 * 0.0288 / 4 = 0.079,
    so only the far one is beyond noise; uncorrected, all four would be."""
    base = [1000 + 10 * i for i in range(10)]
    shifts = {"far": 95, **{f"little{i}": 35 for i in range(3)}, **{f"barely{i}": 5 for i in range(7)}}
    report = build_diff([_summary("base", {k: base for k in shifts})],
                        [_summary("new", {k: [b + s for b in base] for k, s in shifts.items()})])
    rows = {r["name"]: r for r in report.kernels.to_records()}
    assert rows["far"]["p_value"] == pytest.approx(2 / math.comb(20, 10))
    assert rows["far"]["q_value"] == pytest.approx(11 * 2 / math.comb(20, 10))
    little = rows["little0"]["p_value"]
    assert little < 0.05
    barely = rows["barely0"]["p_value"]
    assert 11 * barely / 11 > 11 * little / 4  # the seven larger p-values do not lower the three's q
    for i in range(3):
        assert rows[f"little{i}"]["q_value"] == pytest.approx(11 * little / 4)
        assert (rows[f"little{i}"]["noise"], rows[f"little{i}"]["status"]) == ("within", "same")
    assert (rows["far"]["noise"], rows["far"]["status"]) == ("beyond", "changed")
    assert {rows[f"barely{i}"]["noise"] for i in range(7)} == {"within"}


def test_the_rank_test_equals_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    import random

    rng = random.Random(7)
    for n1, n2, spread in [(5, 7, 10_000), (12, 20, 10_000), (30, 45, 40), (200, 150, 25)]:  # exact, then ties
        base = [rng.randrange(1000, 1000 + spread) for _ in range(n1)]
        new = [rng.randrange(1010, 1010 + spread) for _ in range(n2)]
        ours = mann_whitney(Dist.of(Counter(base)), Dist.of(Counter(new)))
        method = "exact" if ours.method == "exact" else "asymptotic"
        theirs = scipy_stats.mannwhitneyu(new, base, alternative="two-sided", method=method)
        assert (ours.u, ours.p_value) == pytest.approx((theirs.statistic, theirs.pvalue), rel=1e-9)
