"""`classify`: every kernel name with its category and the rule that matched, heaviest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rules import RuleSet
from ...core.result import Result
from .data import NameTime, name_times, with_counts

if TYPE_CHECKING:
    from ...core.filters import KernelFilter
    from ...data.profile import Profile

COLUMNS = ["category", "rule", "tags", "instances", "total_time_ns", "time_pct", "name"]
HEADERS = ["Category", "Rule", "Tags", "Instances", "Total Time (ns)", "Time (%)", "Name"]


def classify_kernels(
    profile: Profile, rules: RuleSet, filters: KernelFilter | None = None,
    unmatched: bool = False, limit: int | None = None,
) -> Result:
    """Kernel names (summed over devices) with category, rule and tags; `unmatched`: only those no rule matched."""
    rows = _merge_devices(name_times(profile, rules, filters, memory_ops=False))
    total = sum(r.total_ns for r in rows)
    listed = [r for r in rows if r.rule is None] if unmatched else rows
    out = [
        (r.category, r.rule or "", ",".join(r.tags), r.instances, r.total_ns,
         100.0 * r.total_ns / total if total else 0.0, r.name)
        for r in listed[:limit]
    ]
    return Result(list(COLUMNS), out, _notes(rows, rules, unmatched), list(HEADERS))


def _merge_devices(rows: list[NameTime]) -> list[NameTime]:
    merged: dict[tuple, list] = {}
    for r in rows:
        entry = merged.setdefault((r.name, r.category, r.rule), [r, 0, 0])
        entry[1] += r.instances
        entry[2] += r.total_ns
    out = [with_counts(r, n, t) for r, n, t in merged.values()]
    return sorted(out, key=lambda r: (-r.total_ns, r.name))


def _notes(rows: list[NameTime], rules: RuleSet, unmatched: bool) -> list[str]:
    none = [r for r in rows if r.rule is None]
    total = sum(r.total_ns for r in rows)
    share = 100.0 * sum(r.total_ns for r in none) / total if total else 0.0
    counts = (f"{len(rows)} kernel names: {len(rows) - len(none)} matched a rule, {len(none)} matched none "
              f"(category other, {share:.1f} % of kernel time). Time (%) is of the summed kernel durations.")
    notes = [counts, f"Rules: {' + '.join(rules.sources)}."]
    if unmatched and none:
        notes.append("To classify them, add [[rule]]s in a TOML file and pass --rules FILE (docs/categories.md).")
    return notes
