"""What `runs add` stores for a run: each profile's diff summary (hashed) and, if asked, its diagnose findings."""

from __future__ import annotations

from ..categories import RuleSet
from ..diff.data import as_member, rank_of, summarize, summarize_side, whole_launch
from ..diff.summary import ProfileSummary


def summarize_run(paths: list[str], rules: RuleSet, attribution: str = "none",
                  diagnose: bool = False) -> tuple[list[ProfileSummary], list[list[dict]] | None]:
    """Summaries of the run's profiles (one per rank) and, with `diagnose`, each one's findings as rows. Several
    profiles, or one report of several GPU processes (a whole launch), are opened as ranks through `ProfileSet` (its
    rank ids; a whole-launch report split by process), as `diff` reads them: stored as one rank, such a report set
    its ranks' steps side by side as twice the steps of one rank, and `runs diff` against the same job's rank files
    called it a change of +100 %.
    Without `diagnose` nothing but the summaries is needed: those remembered in the cache folder are read back
    (diff/memo.py). Each summary covers the whole capture and carries the steady-state one `diff` compares
    (`steady`, in diff's default attribution where none is asked), so that `runs diff` says what `diff` says, and its
    per-step GPU figures (catalog/steps.py: what `runs gate --metric gpu|kernels` compares)."""
    from .steps import add_step_metrics

    if not diagnose:
        whole = summarize_side(paths, rules, attribution, with_hash=True, window="all", split=True)
        steady = summarize_side(paths, rules, _steady_attribution(attribution), window="steady", split=True)
        for w, s in zip(whole, steady):
            w.steady = s
        add_step_metrics(whole)
        return whole, None
    if len(paths) == 1 and not whole_launch(paths[0]):
        from ...data.profile import Profile

        with Profile(paths[0]) as p:
            results = [summarize_with_findings(p, rules, rank_of(paths[0], 0), attribution)]
    else:
        from ...data.profile_set import ProfileSet

        results = ProfileSet(paths).map(summarize_member, rules, attribution)
    summaries = [s for s, _ in results]
    add_step_metrics(summaries)
    return summaries, [f for _, f in results]


def summarize_member(member, rules: RuleSet, attribution: str):
    """One rank of a ProfileSet (module level: process pools pickle it)."""
    with member.open() as p:
        summary, found = summarize_with_findings(p, rules, member.rank, attribution)
    return as_member(summary, member), found


def summarize_with_findings(profile, rules: RuleSet, rank: int, attribution: str):
    summary = summarize(profile, rules, rank, attribution, with_hash=True, window="all")
    summary.steady = summarize(profile, rules, rank, _steady_attribution(attribution), window="steady")
    return summary, _findings(profile)


def _steady_attribution(attribution: str) -> str:
    """`diff`'s default (auto) where `runs add` asks none, so that the stored steady state is what diff compares."""
    return "auto" if attribution == "none" else attribution


def _findings(profile) -> list[dict]:
    from ..diagnose import diagnose

    report = diagnose(profile)
    return [{"rule": f.rule, "severity": f.severity, "at_stake_ns": int(f.at_stake_ns), "summary": f.summary,
             "fix": f.fix} for f in report.findings]
