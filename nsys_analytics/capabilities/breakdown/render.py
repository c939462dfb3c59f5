"""Text for a report made of several tables (`breakdown`): each table through `render`, with its title.

- table / markdown: each section's title, its table and its notes (the basis), one after the other; over several
  columns each note once, under the first table that has it;
- json: one object, `{"title", "basis", "sections": {key: {"title", "rows", "notes"}}}`;
- csv: one table, `categories` unless `table` names another section (`rollup`, `top`, or `top_<label>` for
  each of two profiles); the notes are in the other formats.
"""

from __future__ import annotations

import json

from ...output.render import _json_value, pick_table, to_csv, to_markdown, to_table
from ...output.report import Report
from .report import BreakdownReport

DEFAULT_TABLE = "categories"


def render_report(report: BreakdownReport, fmt: str, table: str | None = None) -> str:
    if fmt == "json":
        return _json(report)
    if fmt == "csv":
        return to_csv(pick_table({s.key: s.result for s in report.sections}, table, DEFAULT_TABLE))
    sections = _notes_once(report.sections) if len(report.columns) > 1 else report.sections
    if fmt == "markdown":
        return "\n".join(f"### {s.title}\n\n{to_markdown(s.result)}" for s in sections)
    return "\n".join(f"{s.title}\n\n{to_table(s.result)}" for s in sections)


def _notes_once(sections: list) -> list:
    """Several columns' sections, each note under the first table that has it: the basis and window notes of every
    column, repeated under each table, took 20 lines a table over four ranks (one profile's two lines are repeated:
    each table reads alone). A table whose notes were all said says so in one line."""
    from dataclasses import replace

    seen: set[str] = set()
    out = []
    for s in sections:
        notes = [n for n in s.result.notes if n not in seen]
        if s.result.notes and not notes:
            notes = [f"Time (%) and the window{'s' if len(s.result.notes) > 2 else ''} as under the tables above."]
        seen.update(s.result.notes)
        out.append(replace(s, result=replace(s.result, notes=notes)))
    return out


def _json(report: BreakdownReport) -> str:
    sections = {
        s.key: {
            "title": s.title,
            "rows": [dict(zip(s.result.columns, map(_json_value, row))) for row in s.result.rows],
            "notes": s.result.notes,
        }
        for s in report.sections
    }
    doc = {"title": report.title, "basis": report.basis, "sections": sections}
    return json.dumps(doc, indent=2, default=str) + "\n"


class BreakdownOutput(Report):
    """A BreakdownReport as the writer takes it: its sections are its tables (`categories` first)."""

    def __init__(self, report: BreakdownReport):
        self.report = report

    def tables(self) -> dict:
        return {s.key: s.result for s in self.report.sections}

    def default_table(self) -> str:
        return DEFAULT_TABLE

    def render(self, fmt: str, table: str | None = None) -> str:
        return render_report(self.report, fmt, table)
