"""The shape of a multi-section text report (`report`, `attention`): titled sections of sentences and tables.
A section whose input is missing carries the message that says what to do instead. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.result import Result


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
class TextReport:
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
