"""A report of titled sections of sentences and tables (`report`, `attention`, `profile`'s headline), and its text:
table (titled sections), markdown, JSON (every section) or CSV (one table, `--table`). A section whose input is
missing carries the message that says what to do instead. No I/O here."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field

from ..core.result import Result
from .render import _json_value, pick_table, to_csv, to_markdown, to_table
from .report import Report
from .terminal import current_width


@dataclass
class Table:
    title: str
    result: Result
    name: str = ""  # what `--table` calls it (`--format csv` writes one table)


@dataclass
class ReportSection:
    """One answer: sentences, tables, and sentences after them (notes); `missing` when it could not be made."""

    key: str
    title: str
    lines: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: str | None = None


@dataclass
class TextReport(Report):
    title: str
    inputs: list[str]
    sections: list[ReportSection]
    table_sections: dict[str, str] = field(default_factory=dict)  # table name -> the key of its section

    def section(self, key: str) -> ReportSection:
        return next(s for s in self.sections if s.key == key)

    def tables(self) -> dict:
        """{table name: Result, or why its section could not be made}, in report order."""
        made = {t.name: t.result for s in self.sections for t in s.tables}
        out = {}
        for name, key in self.table_sections.items():
            out[name] = made.get(name, self.section(key).missing or "the section has no such table")
        return out

    def render(self, fmt: str, table: str | None = None) -> str:
        return render_text_report(self, fmt, table)

    def to_dict(self) -> dict:
        return _doc(self)


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
    width = min(current_width() or _WIDTH, _WIDTH)
    return textwrap.fill(text, width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False) + "\n"


def _json(report: TextReport) -> str:
    return json.dumps(_doc(report), indent=2, default=str) + "\n"


def _doc(report: TextReport) -> dict:
    return {
        "title": report.title,
        "inputs": report.inputs,
        "sections": {s.key: _json_section(s) for s in report.sections},
    }


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
