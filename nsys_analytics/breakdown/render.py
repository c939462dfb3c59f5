"""Text for a report made of several tables (`breakdown`): each table through `render`, with its title.

- table / markdown: each section's title, its table and its notes (the basis), one after the other;
- json: one object, `{"title", "basis", "sections": {key: {"title", "rows", "notes"}}}`;
- csv: one CSV block per section, each preceded by `# title` and followed by `# note` lines and a blank
  line (read one block with e.g. pandas.read_csv(..., comment="#") after splitting on blank lines,
  or use --format json / the Python API for machine use).
"""

from __future__ import annotations

import json

from ..render import _json_value, to_csv, to_markdown, to_table
from .report import BreakdownReport


def render_report(report: BreakdownReport, fmt: str) -> str:
    if fmt == "json":
        return _json(report)
    if fmt == "csv":
        return "\n".join(_csv_block(s.title, s.result) for s in report.sections)
    if fmt == "markdown":
        return "\n".join(f"### {s.title}\n\n{to_markdown(s.result)}" for s in report.sections)
    return "\n".join(f"{s.title}\n\n{to_table(s.result)}" for s in report.sections)


def _csv_block(title: str, result) -> str:
    notes = "".join(f"# {n.strip()}\n" for n in result.notes)
    return f"# {title}\n{to_csv(result)}{notes}"


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
