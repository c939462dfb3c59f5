"""`runs gate`: which metric, which baseline, and the decision, for the CLI to print (no I/O but the catalog's reads).

Metrics: `step` (diff's headline: the step family's mean instance time, else total kernel time), `gpu` (GPU busy time
per step) and `kernels` (kernel time per step), both stored per step at `runs add` (catalog/steps.py), and
`range:NAME` (the mean duration of that NVTX range's instances, as `runs trend` reads it). Each compares the two
sides' means; the rank test on the per-instance values says whether the change is beyond noise."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.errors import UsageError

if TYPE_CHECKING:
    from ..diff.summary import ProfileSummary, Stat
    from .connect import Catalog

METRIC_HELP = ("step (default: mean step time, else total kernel time), gpu (GPU busy time per step), "
               "kernels (kernel time per step) or range:NAME (mean duration of that NVTX range)")
LABELS = {"gpu": "GPU busy time per step", "kernels": "Kernel time per step"}


@dataclass
class GateDecision:
    failed: bool
    line: str  # PASS/FAIL, why, and the comparison's sentence


@dataclass
class NewSide:
    """NEW as the gate sees it: its summaries, identity, name in the line and run id if it is stored."""

    summaries: list[ProfileSummary]
    content_hash: str
    name: str
    run_id: int | None


def parse_metric(text: str) -> tuple[str, str | None]:
    kind, colon, name = text.partition(":")
    if kind in ("step", "gpu", "kernels") and not colon or kind == "range" and name.strip():
        return kind, name.strip() or None
    raise UsageError(f"--metric {text!r}: use {METRIC_HELP}")


def parse_threshold(text: str) -> float:
    """A percentage `5%` or `2.5`: finite and not negative."""
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"--max-regression {text!r}: write a percentage of 0 or more, e.g. 5%")
    return value


def pick_baseline(catalog: Catalog, baseline: str, new: NewSide, kind: str, name: str | None) -> int | None:
    """A run id as given; for `key=value` the newest run with that tag that differs from NEW, was added before it
    (when NEW is stored) and has the metric. None: no such run (NEW is the only one, e.g. a first CI push); an
    error when no run at all has the tag."""
    if baseline.isdigit():
        return int(baseline)
    from .data import list_runs

    key, sep, value = baseline.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"--baseline {baseline!r}: write a run id or key=value, e.g. --baseline branch=main")
    tagged = list_runs(catalog, {key.strip(): value.strip()}, limit=50)
    if not tagged:
        raise UsageError(f"no run tagged {baseline} to compare with in {catalog.name} (add one with "
                         f"`runs add PROFILE --tag {baseline}`)")
    earlier = [r["id"] for r in tagged if r["content_hash"] != new.content_hash
               and (new.run_id is None or r["id"] < new.run_id)]
    having = _having(catalog, kind, name, earlier)
    return next((i for i in earlier if i in having), None)


def _having(catalog: Catalog, kind: str, name: str | None, run_ids: list[int]) -> set[int]:
    if kind == "step":
        return set(run_ids)
    if kind == "range":
        from .data import metric_series

        return set(metric_series(catalog, "range", name, run_ids)) if run_ids else set()
    from .data import runs_with_step_stats

    return runs_with_step_stats(catalog, kind, run_ids)


def no_baseline(baseline: str, new: NewSide, kind: str, name: str | None) -> GateDecision:
    return GateDecision(False, f"PASS (no earlier baseline: no run tagged {baseline} before {new.name}"
                               f"{_having_what(kind, name)}; nothing to compare)")


def _having_what(kind: str, name: str | None) -> str:
    if kind == "step":
        return ""
    return f" with range {name}" if kind == "range" else f" with {LABELS[kind].lower()} stored"


def new_figures(catalog: Catalog, kind: str, name: str | None, new: NewSide) -> Stat | None:
    """NEW's figures of metric `kind` (None for step: diff compares it); an error when NEW has none."""
    if kind == "step":
        return None
    if kind == "range":
        return _range_stat(new.summaries, name, new.name)
    return _new_step_stat(catalog, new, kind)


def base_figures(catalog: Catalog, kind: str, name: str | None, base_id: int) -> tuple[str | None, Stat]:
    """(step family or range name, figures) of metric `kind` (gpu, kernels, range) for the baseline run."""
    if kind == "range":
        from .data import load_run

        return name, _range_stat(load_run(catalog, base_id), name, f"run {base_id}")
    from .data import step_stat

    stored = step_stat(catalog, base_id, kind)
    if stored is None:
        raise UsageError(f"run {base_id} has no {LABELS[kind]} stored (no step range, or added by a version before "
                         f"catalog schema 2): name another --baseline")
    return stored


def _new_step_stat(catalog: Catalog, new: NewSide, kind: str) -> Stat:
    from ..diff.summary import Stat
    from .steps import META_KEY

    if new.run_id is not None and not any(META_KEY in s.meta for s in new.summaries):
        from .data import step_stat

        stored = step_stat(catalog, new.run_id, kind)
        if stored is not None:
            return stored[1]
    stats = [s.meta[META_KEY][kind] for s in new.summaries if META_KEY in s.meta]
    if not stats:
        raise UsageError(f"{new.name}: no {LABELS[kind]} (it has no step-like NVTX range with kernels, e.g. "
                         f"step_*, or was added by a version before catalog schema 2)")
    return Stat.merge(stats)


def _range_stat(summaries: list[ProfileSummary], name: str, where: str) -> Stat:
    """The instances of range NAME (full name, its text after `domain:`, or a family with `*`) on all ranks."""
    from ..diff.matching import range_families
    from ..diff.summary import Stat

    hits = []
    for s in summaries:
        families = range_families(r.name for r in s.ranges)
        hits += [r.wall for r in s.ranges if name in (r.name, families[r.name], r.name.split(":", 1)[-1],
                                                      families[r.name].split(":", 1)[-1])]
    merged = Stat.merge(hits) if hits else None
    if merged is None or not merged.instances:
        raise UsageError(f"--metric range:{name}: {where} has no NVTX range {name!r} (see `nvtx` on the profile)")
    return merged


def decide(kind: str, name: str | None, scope: str | None, base: Stat, new: Stat, threshold: float,
           alpha: float, base_id: int, new_name: str) -> GateDecision:
    """FAIL when the mean grew by more than `threshold` % and the rank test does not say it is within noise (when
    the test cannot tell, as with 3 vs 3 steps, the threshold alone decides)."""
    from ..diff.stats import mann_whitney

    change = 100.0 * (new.avg_ns - base.avg_ns) / base.avg_ns if base.avg_ns else 0.0
    test = mann_whitney(base.dist, new.dist)
    beyond = None if test is None or test.min_p >= alpha else test.p_value < alpha
    failed = change > threshold and beyond is not False
    why = (f"regression {change:+.1f} % > {threshold:g} %" if failed else
           f"{change:+.1f} % within the {threshold:g} % budget" if change <= threshold else
           f"{change:+.1f} % over {threshold:g} % but within noise")
    noise = _noise(test, beyond)
    what = f"{_label(kind, name)} ({scope}, mean of {base.instances} vs {new.instances})" if kind != "range" else \
        f"{_label(kind, name)} (mean of {base.instances} vs {new.instances} instances)"
    text = f"{what} {base.avg_ns / 1e6:.3f} ms -> {new.avg_ns / 1e6:.3f} ms ({change:+.1f} %, {noise})."
    return GateDecision(failed, f"{'FAIL' if failed else 'PASS'} ({why}; {new_name} vs run {base_id}): {text}")


def _noise(test, beyond: bool | None) -> str:
    """What the rank test said (RankTest or None when a side has no instances)."""
    if beyond is not None:
        return f"p = {test.p_value:.2g}, {test.method} Mann-Whitney U: {'beyond' if beyond else 'within'} noise"
    if test is None:
        return "no instances"
    return f"too few instances for the noise test: p >= {test.min_p:.2g} whatever the values, so the threshold " \
           "alone decides"


def _label(kind: str, name: str | None) -> str:
    return f"Range {name}" if kind == "range" else LABELS.get(kind, "Step time")
