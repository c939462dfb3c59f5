"""Per-step GPU figures of a run for `runs gate --metric gpu|kernels`: for each instance of the step range family
(the one `diff` names), the GPU busy time and the kernel time of the work launched inside it
(sql/catalog/step_ranges.sql, step_ops.sql, and `per_step`). Computed at `runs add` (and for a profile given to
`runs gate`) and kept in the summaries' `meta["step_metrics"]`, which the catalog stores in step_stats."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..diff.summary import ProfileSummary, Stat

STEP_METRICS = ("gpu", "kernels")  # GPU busy time per step, kernel time per step
META_KEY = "step_metrics"
FORMAT = "steps-v1"  # change it when `per_step` computes something else
MAX_BYTES = 2**20  # a few KB each; a larger one is computed each time
KEEP = 256  # remembered figures (a few KB each) in the cache folder's summaries/, the most recently written


def add_step_metrics(summaries: list[ProfileSummary]) -> None:
    """Put the step family and {metric: Stat of the per-step values} into each summary's meta. Left out where a
    profile has no step family or no kernels. A rank of a report of a whole launch (meta "pid") counts the steps
    and operations of its own process."""
    for s in summaries:
        pid = s.meta.get("pid")
        figures = _remembered(s.path, pid, lambda s=s, pid=pid: _figures_of(s, pid))
        if figures:
            s.meta[META_KEY] = figures


def _figures_of(summary: ProfileSummary, pid: int | None) -> dict:
    """{"step_range": family, "gpu": Stat, "kernels": Stat} of one profile (of its process `pid` alone, where
    given); {} when it has none."""
    from ..diff.report import step_of

    step, _ = step_of([summary])
    names = step_names(summary, step) if step else []
    computed = _compute(summary.path, names, pid) if names else None
    return {"step_range": step, **computed} if computed else {}


def _compute(path: str, names: list[str], pid: int | None = None) -> dict[str, Stat] | None:
    import numpy as np

    from ...data.profile import Profile
    from ...data.profile_set import RankProfile

    with Profile(path) if pid is None else RankProfile(path, pid) as p:
        if not p.has_table("CUPTI_ACTIVITY_KIND_KERNEL") or not p.has_table("NVTX_EVENTS"):
            return None
        steps = _numpy(p, _sql("step_ranges", {"names": names}))
        pids = np.unique(steps["global_pid"])
        ops = [_numpy(p, _sql("step_ops", {"global_pid": int(pid)})) for pid in pids]
    if not len(pids):
        return None
    kernel_ns, busy_ns = [], []
    for pid, mine in zip(pids, ops):
        lo, hi = np.searchsorted(steps["global_pid"], pid, "left"), np.searchsorted(steps["global_pid"], pid, "right")
        k, b = per_step(steps["start_ns"][lo:hi], steps["end_ns"][lo:hi], mine)
        kernel_ns.append(k)
        busy_ns.append(b)
    return {"gpu": _stat(np.concatenate(busy_ns)), "kernels": _stat(np.concatenate(kernel_ns))}


def _numpy(profile, query: str) -> dict:
    """The query's columns as numpy arrays (the views it reads made first, as Profile.sql makes them)."""
    import numpy as np

    profile.prepare(query)
    return {c: np.asarray(v) for c, v in profile.con.execute(query).fetchnumpy().items()}


def _sql(name: str, params: dict) -> str:
    from ...data import sql_files

    return sql_files.inline_params(sql_files.read("catalog", name).text, params)


def per_step(start, end, ops: dict):
    """(kernel time, GPU busy time) of each step [start, end] of one process (sorted by start) from its operations
    (step_ops.sql): an operation belongs to the latest step started at or before its launching call, if that step
    has not ended by then (steps of a family do not overlap). Busy time is the length of the union of the step's
    operations' intervals: in (step, start) order, each adds what lies beyond the latest end before it in its step.
    numpy on sorted arrays (the same in DuckDB, an ASOF join and a window, took three times the CPU at 1 M
    kernels)."""
    import numpy as np

    launch = ops["launch_start_ns"]
    step = np.searchsorted(start, launch, "right") - 1
    kept = np.flatnonzero((step >= 0) & (launch <= end[np.maximum(step, 0)]))
    step, op_start, op_end = step[kept], ops["start_ns"][kept], ops["end_ns"][kept]
    n = len(start)
    kernel_ns = np.bincount(step, weights=np.where(ops["is_kernel"][kept], op_end - op_start, 0), minlength=n)
    if not len(step):
        return kernel_ns.astype(np.int64), np.zeros(n, dtype=np.int64)
    # (step, start) order: two stable sorts of arrays that are nearly in that order already (timsort merges runs).
    order = np.argsort(op_start, kind="stable")
    order = order[np.argsort(step[order], kind="stable")]
    step, op_start, op_end = step[order], op_start[order], op_end[order]
    # One running maximum for all steps: each step's ends are shifted into a band of its own, above every earlier
    # step's, so an earlier step's end never covers this one's operations.
    base, band = int(op_start.min()), int(op_end.max() - op_start.min()) + 1
    shifted = op_end - base + step * band
    before = np.r_[np.int64(-1), np.maximum.accumulate(shifted)[:-1]] - step * band + base
    busy = np.maximum(op_end - np.maximum(op_start, before), 0)
    return kernel_ns.astype(np.int64), np.bincount(step, weights=busy, minlength=n).astype(np.int64)


def _remembered(path: str, pid: int | None, compute):
    """`compute()`, or its result remembered for this file's present content (and process `pid`), as diff/memo.py
    remembers the summary (profiles of at least the cache's minimum size): a `runs gate` after `runs add`, or the
    same file added to another catalog, then loads no DuckDB (nor the diff report that names the step family)."""
    from pathlib import Path

    from ...data.cache.remembered import per_file

    salt = FORMAT if pid is None else f"{FORMAT}\0pid {pid}"
    return per_file(Path(path), "steps", salt, compute, _load, _dump, KEEP, MAX_BYTES)


def _load(text: str) -> dict | None:
    from ..diff.stats import Dist
    from ..diff.summary import Stat

    try:
        d = json.loads(text)
        return {"step_range": str(d.pop("step_range")),
                **{m: Stat(*v[:-1], Dist.from_json(v[-1])) for m, v in d.items()}} if d else {}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _dump(figures: dict) -> str:
    stats = {m: [s.instances, s.total_ns, s.avg_ns, s.med_ns, s.min_ns, s.max_ns, s.stddev_ns, s.dist.to_json()]
             for m, s in figures.items() if m != "step_range"}
    return json.dumps({"step_range": figures["step_range"], **stats} if figures else {}, separators=(",", ":"))


def step_names(summary: ProfileSummary, step: str) -> list[str]:
    """The full names of the summary's ranges in the step family `step` (itself a name when it is not a family)."""
    from ..diff.matching import range_families

    families = range_families(r.name for r in summary.ranges)
    return sorted(r.name for r in summary.ranges if families[r.name] == step or r.name == step)


def _stat(values: list[int]) -> Stat:
    from collections import Counter

    from ..diff.summary import Stat

    return Stat.of(Counter(int(v) for v in values))
