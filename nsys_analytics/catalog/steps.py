"""Per-step GPU figures of a run for `runs gate --metric gpu|kernels`: for each instance of the step range family
(the one `diff` names), the GPU busy time and the kernel time of the work launched inside it
(sql/catalog/step_metrics.sql). Computed at `runs add` (and for a profile given to `runs gate`) and stored in the
summaries' `meta["step_metrics"]`; plain data, no printing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..diff.summary import ProfileSummary, Stat

STEP_METRICS = {"gpu": "gpu_busy_ns", "kernels": "kernel_ns"}  # gate metric -> step_metrics.sql column
META_KEY = "step_metrics"
FORMAT = "steps-v1"  # change it when step_metrics.sql computes something else
KEEP = 256  # remembered figures (a few KB each) in the cache folder's summaries/, the most recently written


def add_step_metrics(summaries: list[ProfileSummary]) -> None:
    """Put {metric: Stat of the per-step values} and the step family into each summary's meta. Left out where the
    run has no step family, no kernels, or one report holds several ranks (a launch split by process)."""
    from ..diff.report import step_of

    paths = [s.path for s in summaries]
    step, _ = step_of(summaries)
    if step is None or len(set(paths)) != len(paths):
        return
    for s in summaries:
        names = step_names(s, step)
        figures = _remembered(s.path, names, lambda: _compute(s.path, names)) if names else None
        if figures is not None:
            s.meta[META_KEY] = {"step_range": step, **figures}


def _compute(path: str, names: list[str]) -> dict[str, Stat] | None:
    from ..profile import Profile

    with Profile(path) as p:
        if not p.has_table("CUPTI_ACTIVITY_KIND_KERNEL") or not p.has_table("NVTX_EVENTS"):
            return None
        rows = p.run_file("catalog", "step_metrics", {"names": names}).to_records()
    return {m: _stat([r[c] for r in rows]) for m, c in STEP_METRICS.items()} if rows else None


def _remembered(path: str, names: list[str], compute):
    """`compute()`, or its result remembered for this file's present content, as diff/memo.py remembers the
    summary (profiles of at least the cache's minimum size): a `runs gate` after `runs add`, or the same file
    added to another catalog, then loads no DuckDB."""
    from pathlib import Path

    from ..cache.folder import cache_dir, enabled, min_size
    from ..cache.memo import SUMMARIES, recalled

    try:
        if not enabled() or Path(path).stat().st_size < min_size():
            return compute()
        from ..cache.identity import identity, path_prefix

        salt = "\0".join([FORMAT, *names])
        memo = cache_dir() / SUMMARIES / f"{path_prefix(Path(path))}{identity(Path(path), salt)}.steps"
    except OSError:
        return compute()
    return recalled(Path(path), memo, compute, _load, _dump, KEEP)


def _load(text: str) -> dict[str, Stat] | None:
    from ..diff.stats import Dist
    from ..diff.summary import Stat

    try:
        return {m: Stat(*v[:-1], Dist.from_json(v[-1])) for m, v in json.loads(text).items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _dump(figures: dict[str, Stat] | None) -> str | None:
    if figures is None:
        return None
    return json.dumps({m: [s.instances, s.total_ns, s.avg_ns, s.med_ns, s.min_ns, s.max_ns, s.stddev_ns,
                           s.dist.to_json()] for m, s in figures.items()}, separators=(",", ":"))


def step_names(summary: ProfileSummary, step: str) -> list[str]:
    """The full names of the summary's ranges in the step family `step` (itself a name when it is not a family)."""
    from ..diff.matching import range_families

    families = range_families(r.name for r in summary.ranges)
    return sorted(r.name for r in summary.ranges if families[r.name] == step or r.name == step)


def _stat(values: list[int]) -> Stat:
    from collections import Counter

    from ..diff.summary import Stat

    return Stat.of(Counter(int(v) for v in values))
