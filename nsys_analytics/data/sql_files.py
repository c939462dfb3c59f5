"""Read the SQL shipped in sql/: view definitions and report queries, with their header docs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class ColumnDoc:
    name: str
    doc: str


@dataclass(frozen=True)
class SqlFile:
    name: str
    text: str

    @property
    def summary(self) -> str:
        """The first header line after `name:`."""
        first = self.text.splitlines()[0].lstrip("- ").strip()
        return first.split(":", 1)[1].strip() if ":" in first else first

    @property
    def header(self) -> list[str]:
        lines = []
        for line in self.text.splitlines():
            if not line.startswith("--"):
                break
            lines.append(line.lstrip("- ").rstrip())
        return lines

    @property
    def columns(self) -> list[ColumnDoc]:
        """Output columns of the top-level SELECT, from `... AS name, -- doc` lines."""
        docs = []
        for m in _COLUMN_LINE.finditer(self.text):
            docs.append(ColumnDoc(m.group("name"), m.group("doc").strip()))
        return docs


# `    expr AS name,   -- doc` or a bare `    name,  -- doc` at the outer indentation (4 spaces).
_COLUMN_LINE = re.compile(r"^    (?:[^\n]*?\bAS )?(?P<name>[a-z_][a-z0-9_]*),?[ \t]+--(?P<doc>[^\n]*)$", re.M)


def view_columns(name: str) -> list[ColumnDoc]:
    """Documented columns of a view, including those of the view it extends (`-- Extends: base`)."""
    sql = read("views", name)
    bases = [line.split(":", 1)[1].strip() for line in sql.header if line.startswith("Extends:")]
    inherited = [c for base in bases for c in view_columns(base)]
    return inherited + sql.columns


@cache
def read(folder: str, name: str) -> SqlFile:
    text = (resources.files("nsys_analytics.sql") / folder / f"{name}.sql").read_text()
    return SqlFile(name, text)


def names(folder: str) -> list[str]:
    root = resources.files("nsys_analytics.sql") / folder
    return sorted(p.name[:-4] for p in root.iterdir() if p.name.endswith(".sql"))


_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def inline_params(text: str, params: dict) -> str:
    """Replace `$name` with the value as a SQL literal.

    Used for the shipped queries instead of DuckDB's parameter binding, whose first use imports pandas
    (a quarter of a second, more than the query itself on a million kernels). Only None, bool, int,
    finite float, str, a list of str and Relation (a table or view name, inlined as a quoted identifier)
    are accepted; strings and names are quoted by doubling quotes, so no value can end the literal.
    User-written SQL (`nsys-analytics sql -p`) keeps DuckDB's binding.
    """

    def literal(m: re.Match) -> str:
        name = m.group(1)
        if name not in params:
            raise KeyError(f"query parameter ${name} has no value")
        return sql_literal(params[name])

    return _PARAM.sub(literal, text)


class Relation(str):
    """A table or view name as a query parameter (`FROM $ops`): inlined as a quoted identifier."""


def sql_literal(value) -> str:
    if isinstance(value, Relation):
        return '"' + value.replace('"', '""') + '"'
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return repr(float(value))
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return "[" + ", ".join(sql_literal(v) for v in value) + "]::VARCHAR[]"
    raise TypeError(f"cannot use {type(value).__name__} as a query parameter")
