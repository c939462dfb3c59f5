"""Render a `SetResult`: both tables in human formats, a JSON object of tables, or one CSV table."""

from __future__ import annotations

import json

from ...output.render import render, to_json
from ...output.report import Report

SET_TABLES = ("all", "combined", "ranks")


def render_set(result, fmt: str, table: str = "all") -> str:
    """table/markdown: each table under a title; json: {"combined": [...], "ranks": [...], "notes": [...]};
    csv: exactly one rectangular table: `all` (the default) writes the per-rank rows and the combined rows with
    rank `all`; `combined` or `ranks` writes that table alone."""
    tables = result.tables()
    if fmt == "json":
        out = {name: json.loads(to_json(t)) for name, t in tables.items()}
        out["notes"] = list(result.notes)
        return json.dumps(out, indent=2, default=str) + "\n"
    if fmt == "csv":
        return render(one_table(result, table), "csv")
    parts = []
    titles = {"combined": "All ranks", "ranks": "Per rank"}
    for name, t in tables.items():
        if table not in ("all", name):
            continue
        title = titles.get(name, name)
        parts.append(f"## {title}\n\n" if fmt == "markdown" else f"{title}\n")
        parts.append(render(t, fmt))
        parts.append("\n")
    notes = "".join(f"_{n}_\n" if fmt == "markdown" else f"{n}\n" for n in result.notes)
    return "".join(parts) + notes


def one_table(result, table: str):
    from ...core.result import Result

    if table == "combined" and result.combined is not None:
        return result.combined
    if table == "ranks" or result.combined is None:
        return result.ranks
    ranks, combined = result.ranks, result.combined
    columns = ranks.columns
    rows = [tuple(r) for r in ranks.rows]
    for row in combined.rows:
        values = dict(zip(combined.columns, row))
        rows.append(tuple("all" if c == "rank" else values.get(c) for c in columns))
    return Result(columns, rows, headers=ranks.headers)


# The tables each format shows without --table: the collectives (a row per NCCL kernel and rank) only on request.
RANKS_DEFAULT = {"table": ("findings", "summary", "phases", "steps"), "csv": ("summary",),
                 "json": ("summary", "steps", "phases", "findings")}
RANKS_TITLES = {"findings": "Findings", "summary": "Per rank (mean per steady step)",
                "phases": "NVTX ranges inside a step (mean per steady step)", "steps": "Per rank and step",
                "collectives": "Collective instances"}


class RanksOutput(Report):
    """The `ranks` report as the writer takes it: its notes (`head`), then the findings and tables; `only` the one
    table --table names (the collectives only when named: a row per NCCL kernel and rank)."""

    def __init__(self, report, head: list[str], only: str | None = None):
        self.report = report
        self.head = head
        self.only = only

    def tables(self) -> dict:
        from .report import tables

        return tables(self.report, [self.only] if self.only else RANKS_DEFAULT["json"])

    def default_table(self) -> str:
        return self.only or "summary"

    def to_dict(self) -> dict:
        out = {name: json.loads(to_json(t)) for name, t in self.tables().items()}
        for f in out.get("findings", []):  # JSON text in the table (one value a CSV cell): an object here
            f["waits_ms_per_step"] = f["waits_ms_per_step"] and json.loads(f["waits_ms_per_step"])
        out["notes"] = self.head
        return out if self.only is None else {self.only: out[self.only]}

    def layout(self, fmt: str, table: str | None = None) -> str:
        tables = self.tables()
        names = [self.only] if self.only else list(RANKS_DEFAULT["table"])
        parts = [] if self.only else ["".join(f"_{h}_\n" if fmt == "markdown" else f"{h}\n" for h in self.head) + "\n"]
        for name in names:
            t = tables[name]
            if name == "findings" and t.rows:
                parts.append(_findings_text(t, fmt))
                continue
            title = RANKS_TITLES[name]
            parts.append((f"## {title}\n\n" if fmt == "markdown" else f"{title}\n") + render(t, fmt) + "\n")
        return "".join(parts)


def _findings_text(findings, fmt: str) -> str:
    """Each finding's sentence and its fix (the figures are in the JSON and CSV findings table)."""
    from ...core.result import Result

    at = {c: i for i, c in enumerate(findings.columns)}
    rows = [(r[at["severity"]], r[at["message"]], r[at["fix"]]) for r in findings.rows]
    if fmt == "markdown":
        return f"## {RANKS_TITLES['findings']}\n\n" + render(Result(["severity", "message", "fix"], rows), fmt) + "\n"
    return "Findings\n" + "".join(f"  [{s}] {m}\n" + (f"    fix: {x}\n" if x else "") for s, m, x in rows) + "\n"


class SetOutput(Report):
    """A SetResult (a command over many ranks) as the writer takes it: `table` all (per-rank rows and the combined
    ones as rank `all`, the default), combined or ranks; CSV and Parquet hold that one table."""

    def __init__(self, result, table: str = "all"):
        self.result = result
        self.table = table
        self.exit_code = result.exit_code

    def tables(self) -> dict:
        return {self.table: one_table(self.result, self.table)}

    def to_dict(self) -> dict:
        return json.loads(render_set(self.result, "json", self.table))

    def render(self, fmt: str, table: str | None = None) -> str:
        return render_set(self.result, fmt, self.table)
