"""What `runs add` stores for a run: each profile's diff summary (hashed) and, if asked, its diagnose findings."""

from __future__ import annotations

from collections.abc import Callable

from ..categories import RuleSet
from ..diff.data import rank_of, summarize
from ..diff.summary import ProfileSummary


def summarize_run(paths: list[str], rules: RuleSet, attribution: str = "none", diagnose: bool = False,
                  progress: Callable[[str], None] | None = None) -> tuple[list[ProfileSummary], list[list[dict]] | None]:
    """Summaries of the run's profiles (one per rank) and, with `diagnose`, each one's findings as rows."""
    from ..profile import Profile

    summaries, found = [], []
    for i, path in enumerate(paths):
        if progress:
            progress(f"reading {path}")
        with Profile(path) as p:
            summaries.append(summarize(p, rules, rank_of(path, i), attribution, with_hash=True))
            if diagnose:
                found.append(_findings(p))
    ranks = [s.rank for s in summaries]
    if len(set(ranks)) != len(ranks):  # two files claim one rank number: number them by position instead
        for i, s in enumerate(summaries):
            s.rank = i
    return summaries, (found if diagnose else None)


def _findings(profile) -> list[dict]:
    from ..diagnose import diagnose

    report = diagnose(profile)
    return [{"rule": f.rule, "severity": f.severity, "at_stake_ns": int(f.at_stake_ns), "summary": f.summary,
             "fix": f.fix} for f in report.findings]
