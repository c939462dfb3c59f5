"""Text for a `TextReport` (`report`, `attention`): table (titled sections of sentences and tables), markdown, JSON
(every section) or CSV (one table, `--table`). Tables go through render.py."""

from __future__ import annotations

import json
import textwrap

from .render import _json_value, pick_table, to_csv, to_markdown, to_table
from .textreport import ReportSection, TextReport

REPORT_FORMATS = ("table", "csv", "json", "markdown")
_WIDTH = 110


def render_text_report(report: TextReport, fmt: str = "table", table: str | None = None) -> str:
    if fmt == "csv":
        tables = report.tables()
        return to_csv(pick_table(tables, table, next(iter(tables))))
    if fmt == "json":
        return _json(report)
    if fmt == "markdown":
        head = f"# {report.title}\n\n" + "".join(f"- {i}\n" for i in report.inputs)
        return head + "".join(_markdown_section(s) for s in report.sections)
    head = f"{report.title}\n{'=' * len(report.title)}\n" + "".join(f"  {i}\n" for i in report.inputs)
    return head + "".join(_text_section(s) for s in report.sections)


def _text_section(s: ReportSection) -> str:
    out = [f"\n{s.title}\n{'-' * len(s.title)}\n"]
    if s.missing:
        out.append(_wrap(f"Not available: {s.missing}"))
    out += [_wrap(line) for line in s.lines]
    for t in s.tables:
        out.append(f"\n{t.title}\n\n{to_table(t.result)}")
    if s.notes:
        out.append("\n" + "".join(_wrap(n) for n in s.notes))
    return "".join(out)


def _markdown_section(s: ReportSection) -> str:
    out = [f"\n## {s.title}\n\n"]
    if s.missing:
        out.append(f"**Not available:** {s.missing}\n\n")
    out += [f"{line}\n\n" for line in s.lines]
    for t in s.tables:
        out.append(f"**{t.title}**\n\n{to_markdown(t.result)}\n")
    out += [f"_{n}_\n\n" for n in s.notes]
    return "".join(out)


def _wrap(text: str) -> str:
    return textwrap.fill(text, _WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False) + "\n"


def _json(report: TextReport) -> str:
    doc = {
        "title": report.title,
        "inputs": report.inputs,
        "sections": {s.key: _json_section(s) for s in report.sections},
    }
    return json.dumps(doc, indent=2, default=str) + "\n"


def _json_section(s: ReportSection) -> dict:
    return {
        "title": s.title,
        "missing": s.missing,
        "lines": s.lines,
        "tables": [
            {"name": t.name, "title": t.title, "rows": [dict(zip(t.result.columns, map(_json_value, r))) for r in t.result.rows],
             "notes": t.result.notes}
            for t in s.tables
        ],
        "notes": s.notes,
    }
