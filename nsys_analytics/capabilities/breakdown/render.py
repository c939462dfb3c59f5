"""Text for a report made of several tables (`breakdown`): each table through `render`, with its title.

- table / markdown: each section's title, its table and its notes (the basis), one after the other; over several
  columns each note once, under the first table that has it; in a terminal too narrow for the side-by-side table
  whole, its columns are headed by what tells their names apart (`0 (%)` for `ddp4_backward.0 (%)`) and the top
  tables' basis and window, said per column under the first table, are not repeated;
- json: one object, `{"title", "basis", "sections": {key: {"title", "rows", "notes"}}}`;
- csv: one table, `categories` unless `table` names another section (`rollup`, `top`, or `top_<label>` for
  each of two profiles); the notes are in the other formats.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from ...output.render import _json_value, fits_whole, pick_table, to_csv, to_markdown, to_table
from ...output.report import Report
from .report import BreakdownReport, basis_notes

DEFAULT_TABLE = "categories"


def render_report(report: BreakdownReport, fmt: str, table: str | None = None) -> str:
    if fmt == "json":
        return _json(report)
    if fmt == "csv":
        return to_csv(pick_table({s.key: s.result for s in report.sections}, table, DEFAULT_TABLE))
    if len(report.columns) < 2:
        sections = report.sections
    elif fmt == "table" and not fits_whole(report.sections[0].result):
        sections = _notes_once(_short_headers(report), [n for c in report.columns for n in basis_notes([c])])
    else:
        sections = _notes_once(report.sections)
    if fmt == "markdown":
        return "\n".join(f"### {s.title}\n\n{to_markdown(s.result)}" for s in sections)
    return "\n".join(f"{s.title}\n\n{to_table(s.result)}" for s in sections)


def _notes_once(sections: list, said_first: list[str] | None = None) -> list:
    """Several columns' sections, each note under the first table that has it: the basis and window notes of every
    column, repeated under each table, took 20 lines a table over four ranks (one profile's two lines are repeated:
    each table reads alone). A table whose notes were all said says so in one line.

    `said_first` (a narrow terminal): notes that the first table says in other words (each column's own basis and
    window, which it gives per column), left out of the later tables; only the second says that it has none."""
    seen: set[str] = set()
    out = []
    for k, s in enumerate(sections):
        notes = [n for n in s.result.notes if n not in seen]
        if s.result.notes and not notes and (said_first is None or k == 1):  # given said_first: once, the rollup's
            notes = [f"Time (%) and the window{'s' if len(s.result.notes) > 2 else ''} as under the tables above."]
        seen.update(s.result.notes, said_first or [])
        out.append(replace(s, result=replace(s.result, notes=notes)))
    return out


_SEPARATOR = re.compile(r"[._\- ]")


def _short_headers(report: BreakdownReport) -> list:
    """The sections with the side-by-side tables' columns headed by what tells the columns' names apart, after their
    common start (`ddp4_backward.0 (%)` -> `0 (%)`), and a note naming that start; as they were if nothing is
    shared."""
    labels = [c.label for c in report.columns]
    start = _common_start(labels)
    if not start or len({label[len(start):] for label in labels}) < len(labels):
        return report.sections
    note = f'Columns: their names after "{start}".'
    out = []
    for i, s in enumerate(report.sections):
        headers = s.result.display_headers
        short = [_without_start(h, labels, start) for h in headers]
        if short != headers:
            s = replace(s, result=replace(s.result, headers=short, notes=([note] if i == 0 else []) + s.result.notes))
        out.append(s)
    return out


def _common_start(labels: list[str]) -> str:
    """The start that every label shares, up to and including its last separator (`ddp4_backward.`): "" if none."""
    shared = labels[0]
    for label in labels[1:]:
        while not label.startswith(shared):
            shared = shared[:-1]
    cut = max((m.end() for m in _SEPARATOR.finditer(shared)), default=0)
    return shared[:cut]


def _without_start(header: str, labels: list[str], start: str) -> str:
    """A column's header (`ddp4_backward.0 (%)`) without the start its name shares with the others' (`0 (%)`)."""
    return header[len(start):] if any(header.startswith(label + " (") for label in labels) else header


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
