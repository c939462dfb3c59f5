"""The rank test and the distribution arithmetic behind `diff`, against brute force and hand-computed values."""

from __future__ import annotations

import math
import statistics
from itertools import combinations

import pytest

from nsys_analytics.diff.stats import MAX_EXACT, Dist, mann_whitney
from nsys_analytics.diff.summary import Stat


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
