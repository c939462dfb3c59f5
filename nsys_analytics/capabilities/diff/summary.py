"""What `diff` compares and the run catalog stores for one profile: per-kernel, per-range and per-category figures
with their per-instance distributions. Plain data, no I/O: `diff.data` fills it from a profile, the catalog from
its tables, and `diff.report` compares two sides of them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .stats import Dist


@dataclass(frozen=True)
class Stat:
    """Figures of a set of instances (kernel runs, range instances), in ns. Exact as `kernels` computes them
    (median of an even count: the mean of the middle two; sample standard deviation) when built from exact
    values; a merge of binned distributions gives an approximate median and standard deviation."""

    instances: int
    total_ns: int
    avg_ns: float
    med_ns: float
    min_ns: int
    max_ns: int
    stddev_ns: float
    dist: Dist

    @staticmethod
    def of(pairs: dict[int, int]) -> Stat:
        """From {duration_ns: how often}."""
        items = sorted((int(v), int(c)) for v, c in pairs.items() if c)
        n = sum(c for _, c in items)
        if n == 0:
            return Stat(0, 0, 0.0, 0.0, 0, 0, 0.0, Dist())
        total = sum(v * c for v, c in items)
        squares = sum(v * v * c for v, c in items)
        variance = (n * squares - total * total) / (n * (n - 1)) if n > 1 else 0.0
        return Stat(n, total, total / n, _median(items, n), items[0][0], items[-1][0],
                    math.sqrt(max(variance, 0.0)), Dist.of(dict(items)))

    @staticmethod
    def merge(stats: list[Stat]) -> Stat:
        """Several sets as one (the ranks of a run): counts, totals, min and max exact; median and standard
        deviation exact unless a distribution is binned."""
        stats = [s for s in stats if s.instances]
        if len(stats) == 1:
            return stats[0]
        if not stats:
            return Stat.of({})
        dist = Dist.merge([s.dist for s in stats])
        if not dist.binned:
            return Stat.of(dict(zip(dist.values, dist.counts)))
        approx = Stat.of(dict(zip(dist.values, dist.counts)))
        n, total = sum(s.instances for s in stats), sum(s.total_ns for s in stats)
        return Stat(n, total, total / n, approx.med_ns, min(s.min_ns for s in stats), max(s.max_ns for s in stats),
                    approx.stddev_ns, dist)


def _median(items: list[tuple[int, int]], n: int) -> float:
    lo, hi = (n - 1) // 2, n // 2  # 0-based ranks of the middle one or two
    seen, low_value = 0, None
    for v, c in items:
        if low_value is None and seen + c > lo:
            low_value = v
        if seen + c > hi:
            return (low_value + v) / 2
        seen += c
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class KernelStat:
    """One kernel name (in one name kind) and the figures of its runs."""

    name_kind: str  # 'demangled' | 'short'
    name: str
    category: str  # from the demangled name (the heaviest one for a short name)
    stat: Stat


@dataclass(frozen=True)
class RangeStat:
    """One NVTX range name: its instances' durations and, with an attribution, their kernel GPU time."""

    name: str
    style: str
    wall: Stat
    kernel: Stat | None = None  # per-instance kernel time (None: no attribution asked)


@dataclass(frozen=True)
class RangeKernel:
    """GPU time of one kernel name whose innermost range has this name (attribution only)."""

    range: str
    kernel: str  # demangled
    kernel_ns: int
    kernels: int


@dataclass
class ProfileSummary:
    """The figures of one profile (one rank of a run)."""

    path: str
    label: str  # the file's name without its extension
    rank: int  # position on its side, or the number in `rank3` / `rank_3` in the file name
    file_hash: str | None = None  # sha256 of the file's bytes (the catalog's identity)
    meta: dict = field(default_factory=dict)  # nsys_version, capture_ns, gpus
    attribution: str | None = None  # NVTX attribution mode of `kernel` / `range_kernels`, None: not computed
    kernels: list[KernelStat] = field(default_factory=list)  # both name kinds
    ranges: list[RangeStat] = field(default_factory=list)
    range_kernels: list[RangeKernel] = field(default_factory=list)
    short_names: dict[str, str] = field(default_factory=dict)  # demangled -> short
    window: str = "all"  # 'steady': kernels and ranges of the steady-state steps only; 'all': the whole capture
    steps: int = 0  # steady-state step instances (window 'steady')
    step_range: str | None = None  # the glob naming those steps
    steady: ProfileSummary | None = None  # with a whole-capture summary (the catalog's), the steady-state one

    def kernel_stats(self, name_kind: str) -> list[KernelStat]:
        return [k for k in self.kernels if k.name_kind == name_kind]

    def to_json(self) -> dict:
        """Plain JSON values (diff/memo.py keeps them in the cache folder)."""
        return {"path": self.path, "label": self.label, "rank": self.rank, "file_hash": self.file_hash,
                "meta": self.meta, "attribution": self.attribution,
                "kernels": [[k.name_kind, k.name, k.category, _stat_json(k.stat)] for k in self.kernels],
                "ranges": [[r.name, r.style, _stat_json(r.wall), _stat_json(r.kernel) if r.kernel else None]
                           for r in self.ranges],
                "range_kernels": [[r.range, r.kernel, r.kernel_ns, r.kernels] for r in self.range_kernels],
                "short_names": self.short_names, "window": self.window, "steps": self.steps,
                "step_range": self.step_range}

    @staticmethod
    def from_json(d: dict) -> ProfileSummary:
        return ProfileSummary(
            str(d["path"]), str(d["label"]), int(d["rank"]), d["file_hash"], dict(d["meta"]), d["attribution"],
            [KernelStat(kind, name, category, _stat_of(stat)) for kind, name, category, stat in d["kernels"]],
            [RangeStat(name, style, _stat_of(wall), _stat_of(kernel) if kernel else None)
             for name, style, wall, kernel in d["ranges"]],
            [RangeKernel(rng, kernel, int(ns), int(n)) for rng, kernel, ns, n in d["range_kernels"]],
            {str(k): str(v) for k, v in d["short_names"].items()}, str(d["window"]), int(d["steps"]),
            d["step_range"])


COMMUNICATION = "communication"  # the category of NCCL's kernels (categories/kernel_categories.toml)


def run_kernel_ns(run: list[ProfileSummary], unit: str, compute_only: bool = False) -> float:
    """A run's GPU kernel time per step (its ranks' kernels summed; per run where there is no steady state);
    `compute_only`: NCCL's kernels left out."""
    total = sum(k.stat.total_ns for p in run for k in p.kernel_stats("demangled")
                if not (compute_only and k.category == COMMUNICATION))
    steps = max(p.steps for p in run) if unit == "per step" else 1
    return total / steps


def _stat_json(s: Stat) -> list:
    return [s.instances, s.total_ns, s.avg_ns, s.med_ns, s.min_ns, s.max_ns, s.stddev_ns, s.dist.to_json()]


def _stat_of(v: list) -> Stat:
    *figures, dist = v
    return Stat(*figures, Dist.from_json(dist))
