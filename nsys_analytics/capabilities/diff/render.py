"""Text, markdown, JSON and CSV for a `DiffReport` (no queries here): the verdict first, then the tables."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

from ...output.render import render
from ...output.report import Report
from ...core.result import Result
from . import TABLES

if TYPE_CHECKING:
    from .report import DiffReport

TITLES = {
    "kernels": "Kernels (largest change first)",
    "categories": "Categories",
    "ranges": "NVTX ranges (per-instance durations)",
    "range_categories": "Kernel time by NVTX range and category",
    "ranks": "Ranks",
    "runs": "Runs (each one sample of the headline's noise model)",
}


def render_report(report: DiffReport, fmt: str, tables: tuple[str, ...] = TABLES, limit: int | None = None) -> str:
    """The verdict and `tables`; csv: the one table asked for (nothing else, so the file stays one CSV)."""
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=2, default=str) + "\n"
    chosen = {k: r for k, r in report.tables().items() if k in tables}
    if fmt == "csv":
        return "".join(render(_p_values_kept(r), "csv") for r in chosen.values())
    head = f"**{report.verdict}**\n\n" if fmt == "markdown" else f"{report.verdict}\n\n"
    head += f"base: {', '.join(report.base_labels)}    new: {', '.join(report.new_labels)}\n"
    body = "".join(_section(name, _readable(r, limit), fmt) for name, r in chosen.items())
    notes = "".join(f"\n{n}" for n in report.notes)
    return head + body + notes + "\n"


def _section(name: str, result: Result, fmt: str) -> str:
    title = f"\n## {TITLES[name]}\n\n" if fmt == "markdown" else f"\n{TITLES[name]}\n\n"
    return title + render(result, fmt)


def _readable(result: Result, limit: int | None) -> Result:
    """For people: p-values with two significant digits (a table prints floats with one decimal), the first
    `limit` rows."""
    rows = result.rows[:limit] if limit else result.rows
    for column in ("p_value", "q_value"):
        if column in result.columns:
            i = result.columns.index(column)
            rows = [(*r[:i], format_p(r[i]), *r[i + 1:]) for r in rows]
    more = len(result.rows) - len(rows)
    notes = ([f"... {more} more rows (--limit 0 shows all)"] if more else []) + result.notes
    keys = ("rank", *_KEYS) if "rank" in result.columns else _KEYS  # the ranks table: whose row it is
    return Result(result.columns, rows, notes, result.headers, key_columns=keys)


def _p_values_kept(result: Result) -> Result:
    """For programs: p and q with six significant digits (2.92111e-07), where CSV writes other floats with nsys' one
    decimal (which read every p below 0.05 as 0.0)."""
    columns = [i for i, c in enumerate(result.columns) if c in ("p_value", "q_value")]
    if not columns:
        return result
    rows = [tuple(f"{v:.6g}" if i in columns and isinstance(v, float) else v for i, v in enumerate(r))
            for r in result.rows]
    return replace(result, rows=rows)


# What a narrow terminal keeps longest (output/fit.py): what changed and by how much; each table has its own.
_KEYS = ("name", "change_ns", "range", "change_pct", "category", "status", "base_total_ns", "new_total_ns")


def format_p(p: float | None) -> str | None:
    if p is None:
        return None
    return "<0.001" if p < 0.001 else f"{p:.2g}"


class DiffOutput(Report):
    """A DiffReport as the writer takes it: the verdict and the `chosen` tables (all by default; CSV: kernels),
    `limit` rows of each for people."""

    def __init__(self, report: DiffReport, chosen: tuple[str, ...] = (), limit: int | None = None):
        self.report = report
        self.chosen = tuple(chosen)
        self.limit = limit

    def tables(self) -> dict:
        return self.report.tables()

    def parquet_tables(self) -> dict:
        tables = self.report.tables()
        return {k: tables[k] for k in self.chosen} if self.chosen else tables

    def default_table(self) -> str:
        return "kernels"

    def to_dict(self) -> dict:
        return self.report.to_dict()

    def render(self, fmt: str, table: str | None = None) -> str:
        chosen = self.chosen or (("kernels",) if fmt == "csv" else TABLES)
        return render_report(self.report, fmt, chosen, self.limit)
