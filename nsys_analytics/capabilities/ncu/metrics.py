"""Metric names: check the ones a user asks for, suggest the closest, and know the headline columns.

The headline columns (`ncu_summary`) are defined once, in sql/ncu/ncu_summary.sql: each is a line
`max(value) FILTER (WHERE metric = 'METRIC') AS COLUMN`, read here for the metric behind each column
(its unit, and the names a derived-metric expression may use); the label is the column's doc comment.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache

from ...data import sql_files
from ...core.errors import UsageError

_HEADLINE = re.compile(r"FILTER \(WHERE metric = '(?P<metric>[^']+)'\) AS (?P<column>\w+)")
SUGGESTIONS = 5


@dataclass(frozen=True)
class Headline:
    column: str  # e.g. duration_ns
    metric: str  # e.g. gpu__time_duration.sum
    label: str  # e.g. GPU time of the kernel


@cache
def headline_columns() -> tuple[Headline, ...]:
    """The metric columns of the ncu_summary view, in order."""
    view = sql_files.read("ncu", "ncu_summary")
    labels = {c.name: c.doc for c in view.columns}
    found = _HEADLINE.finditer(view.text)
    return tuple(Headline(m["column"], m["metric"], labels.get(m["column"], "")) for m in found)


def resolve_metrics(requested: list[str], units: dict[str, str]) -> list[str]:
    """The metric names, checked against the report; a headline column name stands for its metric.

    UsageError for names the report lacks, with the closest names it has.
    """
    aliases = {h.column: h.metric for h in headline_columns()}
    resolved, missing = [], []
    for name in (n.strip() for n in requested):
        if not name:
            continue
        name = aliases.get(name, name)
        if name in units:
            resolved.append(name)
        else:
            missing.append(name)
    if missing:
        raise UsageError(unknown_metrics_message(missing, units))
    if not resolved:
        raise UsageError("no metrics given; name some, e.g. --metrics gpu__time_duration.sum")
    return list(dict.fromkeys(resolved))


def unknown_metrics_message(missing: list[str], units: dict[str, str]) -> str:
    """'metric x is not in the report; closest: a, b, c' (one line)."""
    parts = []
    for name in missing:
        close = closest(name, units)
        parts.append(f"{name!r} (closest: {', '.join(close)})" if close else f"{name!r} (the report has no metrics)")
    noun = "metric" if len(missing) == 1 else "metrics"
    return (f"{noun} not in the report: {'; '.join(parts)}; list them with "
            "`nsys-analytics ncu REPORT --list-metrics`")


def closest(name: str, names) -> list[str]:
    """Up to 5 of `names`, closest to `name` first: similar ones (difflib), then those that start like it,
    else the least dissimilar."""
    names = [str(n) for n in names]
    found = difflib.get_close_matches(name, names, n=SUGGESTIONS, cutoff=0.6)
    stem = name.split(".")[0]
    found += [n for n in names if stem and n.startswith(stem) and n not in found]
    return found[:SUGGESTIONS] or difflib.get_close_matches(name, names, n=SUGGESTIONS, cutoff=0.0)
