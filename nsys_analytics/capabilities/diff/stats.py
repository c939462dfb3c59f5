"""Distributions of per-instance durations and the rank test that says whether two of them differ.

A `Dist` is a list of distinct values with their counts: exact when there are at most `MAX_EXACT` distinct
values, else a histogram of log-spaced bins `BIN_RATIO` wide (each bin stands for its geometric centre). Two
dists merge exactly (ranks of one run) and compare with `mann_whitney`. Pure Python, no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cache

MAX_EXACT = 2000  # distinct values kept as they are; beyond this, log bins
BIN_RATIO = 1.005  # a bin is 0.5 % wide: values within it count as ties in the rank test
EXACT_MAX_N = 20  # both sides at most this many instances and no ties: exact p-value, else normal approximation
_LOG_RATIO = math.log(BIN_RATIO)


@dataclass(frozen=True)
class Dist:
    """Sorted distinct values (ns) and how often each occurs; `binned`: values are bin centres."""

    values: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()
    binned: bool = False

    @property
    def n(self) -> int:
        return sum(self.counts)

    @staticmethod
    def of(pairs: dict[int, int] | Counter) -> Dist:
        """From {value: count}; binned when there are more than MAX_EXACT distinct values."""
        items = sorted((int(v), int(c)) for v, c in pairs.items() if c)
        if len(items) > MAX_EXACT:
            return _binned(items)
        return Dist(tuple(v for v, _ in items), tuple(c for _, c in items))

    @staticmethod
    def merge(dists: list[Dist]) -> Dist:
        """Several dists as one (e.g. the ranks of a run)."""
        if any(d.binned for d in dists):
            dists = [d.as_binned() for d in dists]
        total: Counter = Counter()
        for d in dists:
            total.update(dict(zip(d.values, d.counts)))
        merged = Dist.of(total)
        return merged.as_binned() if any(d.binned for d in dists) else merged

    def as_binned(self) -> Dist:
        return self if self.binned else _binned(list(zip(self.values, self.counts)))

    def to_json(self) -> dict:
        return {"values": list(self.values), "counts": list(self.counts), "binned": self.binned}

    @staticmethod
    def from_json(d: dict) -> Dist:
        return Dist(tuple(d["values"]), tuple(d["counts"]), bool(d["binned"]))


def bin_of(value: int) -> int:
    return round(math.log(max(value, 1)) / _LOG_RATIO)


def _binned(items: list[tuple[int, int]]) -> Dist:
    bins: Counter = Counter()
    for v, c in items:
        bins[bin_of(v)] += c
    keys = sorted(bins)
    return Dist(tuple(round(math.exp(b * _LOG_RATIO)) for b in keys), tuple(bins[b] for b in keys), True)


@dataclass(frozen=True)
class RankTest:
    """Mann-Whitney U of NEW against BASE: `u` counts pairs where the new instance is longer (ties 1/2)."""

    u: float
    p_value: float
    method: str  # 'exact' | 'normal' (normal approximation, tie and continuity corrected)
    n_base: int
    n_new: int
    min_p: float  # the smallest p-value these sample sizes (and ties) allow: >= alpha means the test cannot tell

    @property
    def probability_longer(self) -> float:
        """P(a new instance is longer than a base one), ties counted half: 0.5 means no shift."""
        return self.u / (self.n_base * self.n_new) if self.n_base and self.n_new else 0.5


def mann_whitney(base: Dist, new: Dist) -> RankTest | None:
    """Two-sided Mann-Whitney U test; None when a side is empty.

    Exact p (permutation distribution of U) when both sides have at most EXACT_MAX_N instances and no value
    occurs twice; otherwise the normal approximation with tie correction and continuity correction (as
    `scipy.stats.mannwhitneyu(method='asymptotic')`). Binned dists are compared bin by bin (a bin is a tie).
    """
    n1, n2 = base.n, new.n
    if not n1 or not n2:
        return None
    if base.binned or new.binned:
        base, new = base.as_binned(), new.as_binned()
    c1, c2 = dict(zip(base.values, base.counts)), dict(zip(new.values, new.counts))
    u, below, ties = 0.0, 0, 0  # below: base instances shorter than the current value
    for v in sorted(c1.keys() | c2.keys()):
        a, b = c1.get(v, 0), c2.get(v, 0)
        u += b * (below + a / 2)
        below += a
        t = a + b
        ties += t ** 3 - t
    if ties == 0 and n1 <= EXACT_MAX_N and n2 <= EXACT_MAX_N:
        return RankTest(u, _exact_p(round(u), n1, n2), "exact", n1, n2, _exact_p(0, n1, n2))
    return RankTest(u, _normal_p(u, n1, n2, ties), "normal", n1, n2, _normal_p(0, n1, n2, ties))


def _normal_p(u: float, n1: int, n2: int, ties: int) -> float:
    n = n1 + n2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if variance <= 0:
        return 1.0
    z = max(abs(u - n1 * n2 / 2) - 0.5, 0) / math.sqrt(variance)
    return min(1.0, math.erfc(z / math.sqrt(2)))


def _exact_p(u: int, n1: int, n2: int) -> float:
    """Two-sided exact p: twice the smaller tail of U's permutation distribution, at most 1."""
    freq = _u_frequencies(n1, n2)
    total = sum(freq)
    lower = sum(freq[: u + 1]) / total
    upper = sum(freq[u:]) / total
    return min(1.0, 2 * min(lower, upper))


@cache
def _u_frequencies(n1: int, n2: int) -> tuple[int, ...]:
    """How many of the C(n1+n2, n1) orderings give U = 0, 1, ..., n1*n2. The largest instance is either a new
    one, above all n1 base ones (U grows by n1), or a base one (U unchanged):
    f(n1, n2)[u] = f(n1, n2 - 1)[u - n1] + f(n1 - 1, n2)[u]."""
    if n1 == 0 or n2 == 0:
        return (1,)
    freq = [0] * (n1 * n2 + 1)
    for u, c in enumerate(_u_frequencies(n1, n2 - 1)):
        freq[u + n1] += c
    for u, c in enumerate(_u_frequencies(n1 - 1, n2)):
        freq[u] += c
    return tuple(freq)


def benjamini_hochberg(p_values: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values, in the order given: with the m p-values sorted ascending,
    q_(i) = min over j >= i of min(1, m * p_(j) / j). Rejecting every hypothesis with q < alpha keeps the expected
    share of false discoveries among the rejections at most alpha (independent or positively dependent tests)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):  # from the largest p down, keeping the running minimum
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = running
    return adjusted
