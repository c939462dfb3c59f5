"""Read the SQL shipped in sql/: view definitions and report queries, with their front matter and header docs.

Every file starts with four machine-read lines (docs/architecture.md, Adding a capability):

    -- name: kernel_summary                  the file's name
    -- kind: query                           view | table_macro | scalar_macro | query | check | fragment
    -- params: $name_kind, $device           the $params its body uses (a macro: its arguments); or `none`
    -- needs: kernels_in, strings            the objects it reads (views, macros, compat./raw. tables, or
                                             PIPELINE_OBJECTS); or `none`
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources


@dataclass(frozen=True)
class ColumnDoc:
    name: str
    doc: str


KINDS = ("view", "table_macro", "scalar_macro", "query", "check", "fragment")
FRONT_KEYS = ("name", "kind", "params", "needs")
# Objects that a pipeline makes before it runs the files that read them (a file's `needs` may name them), and
# where each is made.
PIPELINE_OBJECTS = {
    **{f"_diag.{n}": "diagnose/data.py (sql/diagnose/_*.sql, sweep.py)" for n in (
        "window_ops", "spans", "gpu_ops", "copies", "copy_calls", "sync_calls", "chunks", "finding_hits",
        "finding_windows", "busy_at", "next_at", "gaps", "hit_depths")},
    "_breakdown_ops": "categories/data.py (breakdown_ops.sql), breakdown/ranges.py (breakdown_range_ops.sql)",
    "_breakdown_base": "breakdown/ranges.py (breakdown_ops.sql)",
    "_breakdown_chosen": "breakdown/ranges.py",
    "_breakdown_groups": "categories/data.py (breakdown_groups.sql)",
    **{f"_ncu_{n}_load": "ncu/tables.py" for n in ("info", "kernels", "nvtx", "instances", "metrics")},
    "ncu_kernels": "ncu/tables.py (ncu_kernels.sql)",
    "ncu_metrics": "ncu/tables.py (ncu_metrics.sql)",
    "_nsys_kernels": "ncu/report.py",
    **{f"_visual_{n}": "visual/data.py, visual/perfetto.py" for n in (
        "driver", "runtime", "kernels", "memcpy", "memset", "graphs", "nvtx", "categories", "early_ops")},
    "steps": "ranks/data.py (the step_ranges rows)",
    "compat._all_kernels": "bad_rows.py (every row of the raw kernel table)",
    **{f"_serve_{n}": "serve/timeline_window.py" for n in ("lanes", "categories", "nvtx_names", "events",
                                                                      "buckets", "wide")},
}


class FrontMatterError(ValueError):
    """A SQL file whose front matter is missing or malformed."""


@dataclass(frozen=True)
class FrontMatter:
    name: str
    kind: str
    params: tuple[str, ...]  # `$name` for a statement; `name` or `name := default` for a macro's arguments
    needs: tuple[str, ...]


def parse_front(name: str, text: str) -> FrontMatter:
    """The front matter of a SQL file's text (its first four lines)."""
    lines = text.split("\n", len(FRONT_KEYS))[:len(FRONT_KEYS)]
    values = {}
    for key, line in zip(FRONT_KEYS, lines):
        prefix = f"-- {key}:"
        if not line.startswith(prefix):
            raise FrontMatterError(f"{name}.sql: line {len(values) + 1} should start with {prefix!r}")
        values[key] = line[len(prefix):].strip()
    if values["kind"] not in KINDS:
        raise FrontMatterError(f"{name}.sql: kind {values['kind']!r} is not one of {', '.join(KINDS)}")
    return FrontMatter(values["name"], values["kind"], _listed(values["params"]), _listed(values["needs"]))


def _listed(value: str) -> tuple[str, ...]:
    return () if value in ("none", "") else tuple(v.strip() for v in value.split(","))


@dataclass(frozen=True)
class SqlFile:
    name: str
    text: str

    @cached_property
    def front(self) -> FrontMatter:
        return parse_front(self.name, self.text)

    @property
    def summary(self) -> str:
        """The first sentence of the prose header, after its `name:` (whole, even where it runs on to the next
        line)."""
        lines = []
        for line in self.header:
            if not line:
                break
            lines.append(line)
        text = " ".join(lines)
        text = text.split(":", 1)[1].strip() if ":" in text.split(" ", 1)[0] else text
        end = re.search(r"\.(?:\s|$)", text)
        return text[: end.start() + 1] if end else text

    @property
    def header(self) -> list[str]:
        """The prose header: the comment lines after the front matter."""
        lines = []
        for line in self.text.splitlines()[len(FRONT_KEYS):]:
            if not line.startswith("--"):
                break
            lines.append(line.lstrip("- ").rstrip())
        return lines

    @property
    def columns(self) -> list[ColumnDoc]:
        """Output columns of the top-level SELECT, from `... AS name, -- doc` lines."""
        docs = []
        outer = _OUTER_SELECT.search(self.text)
        for m in _COLUMN_LINE.finditer(outer[0] if outer else ""):
            doc = m["doc"] if m["doc"] is not None else m["next"]
            docs.append(ColumnDoc(m["name"], " ".join(part.strip() for part in _CONTINUED.split(doc)).strip()))
        return docs


# In the outermost SELECT (from the first `SELECT` at the start of a line to the `FROM` or `UNION` that ends it):
# `    expr AS name,   -- doc` (the expression may begin on earlier lines), or a bare `    [alias.]name,  -- doc`
# at the outer indentation (4 spaces) or on the SELECT line; the doc may stand on the next line when the column's
# own line has none.
_OUTER_SELECT = re.compile(r"^SELECT\b.*?(?=^(?:FROM|UNION)\b|\Z)", re.M | re.S)
_COLUMN_LINE = re.compile(r"^(?:[^\n]*?\bAS |(?:    |SELECT )(?:[a-z_][a-z0-9_]*\.)?)(?P<name>[a-z_][a-z0-9_]*),?"
                          r"(?:[ \t]+--(?P<doc>[^\n]*(?:\n[ \t]{20,}--[^\n]*)*)|[ \t]*\n[ \t]+--(?P<next>[^\n]*))$",
                          re.M)
# A column's doc goes on in comment lines indented under it (20 spaces or more: a comment about the next column
# starts where the columns do).
_CONTINUED = re.compile(r"\n[ \t]{20,}--")
# A file whose output begins with the columns of another: `-- Extends: base` or `-- Columns: those of base`.
_BASE = re.compile(r"(?:^|\. )(?:Extends:|Columns: those of) *(?P<base>[a-z_][a-z0-9_]*)")


def documented_columns(folder: str, name: str) -> list[ColumnDoc]:
    """Documented output columns of a file, those of the file it extends first (a view or macro, or one of its
    own folder)."""
    sql = read(folder, name)
    inherited = []
    for line in sql.header:
        if m := _BASE.search(line):
            base = m["base"]
            inherited += documented_columns(next(f for f in ("views", "macros", folder) if base in names(f)), base)
    return inherited + [c for c in sql.columns if c.name not in {i.name for i in inherited}]


def view_columns(name: str) -> list[ColumnDoc]:
    """Documented columns of a view, including those of the view it extends (`-- Extends: base`)."""
    return documented_columns("views", name)


@cache
def read(folder: str, name: str) -> SqlFile:
    text = (resources.files("nsys_analytics.sql") / folder / f"{name}.sql").read_text()
    return SqlFile(name, text)


@cache
def names(folder: str) -> tuple[str, ...]:
    root = resources.files("nsys_analytics.sql") / folder
    return tuple(sorted(p.name[:-4] for p in root.iterdir() if p.name.endswith(".sql")))


def folders() -> list[str]:
    """The folders of sql/."""
    root = resources.files("nsys_analytics.sql")
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))


# One pass over a query: a string literal (kept), a `--` comment (dropped), a `$name` (its value). Comments go before
# any value is put in: a value inside a comment would end it at a line break of its own (a range name with '\r' or
# '\n') and the rest of the value would be read as SQL; a `$name` inside a literal stays text.
_TOKENS = re.compile(r"('(?:[^']|'')*')|(--[^\n]*)|\$([A-Za-z_][A-Za-z0-9_]*)")


def inline_params(text: str, params: dict) -> str:
    """Replace `$name` with the value as a SQL literal.

    Used for the shipped queries instead of DuckDB's parameter binding, whose first use imports pandas
    (a quarter of a second, more than the query itself on a million kernels). Only None, bool, int,
    finite float, str, a list of str and Relation (a table or view name, inlined as a quoted identifier)
    are accepted; strings and names are quoted by doubling quotes, so no value can end the literal.
    User-written SQL (`nsys-analytics sql -p`) keeps DuckDB's binding.
    """

    def literal(m: re.Match) -> str:
        quoted, comment, name = m.groups()
        if quoted is not None:
            return quoted
        if comment is not None:
            return ""
        if name not in params:
            raise KeyError(f"query parameter ${name} has no value")
        return sql_literal(params[name])

    return _TOKENS.sub(literal, text)


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
