"""`diagnose()`: run the rules on a profile and gather their outcomes into a `DiagnoseReport` (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .beyond import BEYOND_RULES, Thresholds
from .data import Window, prepare
from .findings import Finding, ms, rank
from .nsys_rules import NSYS_RULES, NsysOptions, RuleOutcome, run_nsys_rule
from .ranges import attach_ranges, range_window

if TYPE_CHECKING:
    from ..profile import Profile

RULES = (*NSYS_RULES, *BEYOND_RULES)
_WHOLE_PROFILE, _NSYS_DEFAULTS, _THRESHOLDS = Window(), NsysOptions(), Thresholds()


@dataclass
class DiagnoseReport:
    outcomes: list[RuleOutcome] = field(default_factory=list)  # nsys rules, in nsys' order
    findings: list[Finding] = field(default_factory=list)  # every rule's findings, most GPU time at stake first
    range: dict[str, Any] | None = None  # with `range_name`: the name, its instances and the window kept

    @property
    def skipped(self) -> list[str]:
        return [f"SKIPPED: {o.rule.name}: {o.skipped}" for o in self.outcomes if o.skipped]

    def worst_severity(self) -> str | None:
        return max((f.severity for f in self.findings), key=rank, default=None)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "findings": [f.to_dict() for f in self.findings],
            "nsys_rules": {o.rule.name: _outcome_dict(o) for o in self.outcomes},
        }
        if self.range is not None:
            d["range"] = self.range
        return d


def diagnose(profile: Profile, rules: tuple[str, ...] = RULES, window: Window = _WHOLE_PROFILE,
             nsys_options: NsysOptions = _NSYS_DEFAULTS, thresholds: Thresholds = _THRESHOLDS,
             range_name: str | None = None) -> DiagnoseReport:
    """Run `rules` (nsys' and ours) over `window`; findings come ordered by GPU time at stake.

    `range_name` (text, 'domain:text' or a glob, as `kernels --range`) narrows `window` to the envelope of
    the matching NVTX range instances: from the first one's start to the last one's end. Each finding
    lists the NVTX ranges its windows overlap.
    """
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise UsageError(f"unknown rule {unknown[0]!r}; choose from {', '.join(RULES)}")
    if window.from_ns > window.to_ns:
        raise UsageError("the start time cannot be later than the end time")
    scope = None
    if range_name is not None:
        window, scope = range_window(profile, range_name, window)
    prepare(profile, window)
    report = DiagnoseReport(range=scope)
    for name in (r for r in NSYS_RULES if r in rules):
        outcome = run_nsys_rule(profile, NSYS_RULES[name], window, nsys_options)
        report.outcomes.append(outcome)
        report.findings += _nsys_finding(outcome)
    for name in (r for r in BEYOND_RULES if r in rules):
        report.findings += BEYOND_RULES[name](profile, window, thresholds)
    report.findings.sort(key=lambda f: (-f.at_stake_ns, -rank(f.severity), f.rule))
    attach_ranges(profile, report.findings)
    return report


def _nsys_finding(outcome: RuleOutcome) -> list[Finding]:
    """An nsys rule with rows becomes one warning: its rows' total duration is the time at stake."""
    result = outcome.result
    if result is None or not result.rows:
        return []
    durations = result.column("duration_ns")
    starts = result.column("start_ns")
    pids = result.column("pid") if "pid" in result.columns else [None] * len(durations)
    worst = sorted(zip(durations, starts, pids), key=lambda r: (r[0], r[1]), reverse=True)[:3]
    windows = sorted((s, s + d) for d, s, _ in worst)
    pid = worst[0][2] if len({p for _, _, p in worst}) == 1 else None  # NVTX ranges: that process's only
    return [Finding(
        outcome.rule.name, "warning", f"{outcome.rule.title}: {len(result.rows)} rows, {ms(sum(durations))} in all",
        outcome.rule.advice, int(sum(durations)), windows, {"rows": len(result.rows)}, pid,
    )]


def _outcome_dict(outcome: RuleOutcome) -> dict[str, Any]:
    if outcome.skipped:
        return {"status": "skipped", "message": outcome.skipped}
    return {"status": "ok", "rows": outcome.result.to_records()}
