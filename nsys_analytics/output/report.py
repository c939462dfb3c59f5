"""The one shape of a command's result: a `Report`. Every command builds one and hands it to `output.write`, which
turns it into `--format table|csv|json|markdown|parquet` on stdout or in the `-o` file.

A report has named tables (`tables()`: {name: Result, or the sentence saying why that table could not be made}),
the table that CSV and Parquet take without `--table` (`default_table()`), a JSON document (`to_dict()`), and a
text layout for people (`layout(fmt)`: table or markdown). The defaults below serve a report that is only tables;
a report with sentences (findings, a verdict) overrides `layout` and `to_dict`.
"""

from __future__ import annotations

import json

from ..core.result import Result
from .render import _json_value, pick_table, render, to_csv


class Report:
    exit_code = 0  # what the command exits with once the report is written (diagnose --fail-on: 4)

    def tables(self) -> dict[str, Result | str]:
        raise NotImplementedError

    def default_table(self) -> str:
        """The table CSV and Parquet write without --table."""
        return next(iter(self.tables()))

    def stack_table(self, fmt: str, table: str | None = None) -> Result | None:
        """Over many ranks: the table whose rows stack under a `rank` column in `fmt`, or None where the report
        is text per rank (its own layout, each under its rank's heading)."""
        return None

    def parquet_tables(self) -> dict[str, Result | str]:
        """The tables `--format parquet` writes without --table: one goes to FILE, several to FILE.<name>.parquet."""
        return self.tables()

    def to_dict(self) -> dict | list:
        """The JSON document: every table's rows (or why it is missing)."""
        return {name: records(t) if isinstance(t, Result) else {"missing": t} for name, t in self.tables().items()}

    def layout(self, fmt: str, table: str | None = None) -> str:
        """Text for people (`table` or `markdown`): each table under its name."""
        chosen = {table: pick_table(self.tables(), table, table)} if table else self.tables()
        parts = []
        for name, t in chosen.items():
            head = f"## {name}\n\n" if fmt == "markdown" else f"{name}\n\n"
            parts.append(head + (render(t, fmt) if isinstance(t, Result) else f"Not available: {t}\n"))
        return "\n".join(parts)

    def render(self, fmt: str, table: str | None = None) -> str:
        """The report as text in `fmt` (every format but parquet)."""
        if fmt == "json":
            return json.dumps(self.to_dict(), indent=2, default=str) + "\n"
        if fmt == "csv":
            return to_csv(pick_table(self.tables(), table, self.default_table()))
        return self.layout(fmt, table)


def records(result: Result) -> list[dict]:
    return [dict(zip(result.columns, map(_json_value, row))) for row in result.rows]


class TableReport(Report):
    """One table: a query's rows (streamed in batches where the Result is), JSON as a list of records."""

    def __init__(self, result: Result, name: str = "rows"):
        self.result = result
        self.name = name

    def tables(self) -> dict[str, Result | str]:
        return {self.name: self.result.materialize()}

    def stack_table(self, fmt: str, table: str | None = None) -> Result:
        return self.result.materialize()

    def to_dict(self) -> list:
        return records(self.result.materialize())

    def layout(self, fmt: str, table: str | None = None) -> str:
        return render(self.result.materialize(), fmt)

    def render(self, fmt: str, table: str | None = None) -> str:
        if table not in (None, self.name):
            pick_table(self.tables(), table, self.name)  # the one-line usage error naming the table
        return render(self.result.materialize(), fmt)


class TablesReport(Report):
    """Several tables shown one after the other; `doc`: the JSON document, where it says more than the tables."""

    def __init__(self, tables: dict[str, Result | str], doc: dict | None = None):
        self._tables = tables
        self.doc = doc

    def tables(self) -> dict[str, Result | str]:
        return self._tables

    def to_dict(self) -> dict:
        return self.doc if self.doc is not None else super().to_dict()

    def layout(self, fmt: str, table: str | None = None) -> str:
        return "\n".join(render(t, fmt) for t in self._tables.values() if isinstance(t, Result))
