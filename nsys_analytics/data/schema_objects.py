"""The views and table macros of the normalized schema, what each one reads, and which of them a query needs.

Binding a view costs DuckDB about a millisecond per view it reads, and the NVTX attribution views read many: a
profile creates each object on the first query that needs it, after the objects it reads."""

from __future__ import annotations

import re
from functools import cache

from . import sql_files
from .raw_schema import RAW_TABLES


def _front(folder: str) -> dict[str, sql_files.FrontMatter]:
    return {name: sql_files.read(folder, name).front for name in sql_files.names(folder)}


def _known(name: str) -> bool:
    """Whether a `needs` entry names something that exists besides the views and macros."""
    schema, _, table = name.rpartition(".")
    return (schema in ("compat", "raw") and table in RAW_TABLES) or name in sql_files.PIPELINE_OBJECTS


def creation_order(fronts: dict[str, sql_files.FrontMatter]) -> tuple[str, ...]:
    """The objects in an order where each comes after the objects of `fronts` it needs (by name where the needs
    allow): a cycle, or a need that names nothing, is a FrontMatterError."""
    order: list[str] = []
    state: dict[str, str] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            raise sql_files.FrontMatterError(f"the needs of {name} form a cycle: {' -> '.join((*path, name))}")
        state[name] = "open"
        for need in fronts[name].needs:
            if need in fronts:
                visit(need, (*path, name))
            elif not _known(need):
                raise sql_files.FrontMatterError(f"{name}.sql needs {need!r}, which is no view, macro or table")
        state[name] = "done"
        order.append(name)

    for name in sorted(fronts):
        visit(name, ())
    return tuple(order)


_VIEW_FRONT = _front("views")
_MACRO_FRONT = _front("macros")
_ORDER = creation_order({**_VIEW_FRONT, **_MACRO_FRONT})
# Each view after the views and table macros it reads (the order of their `needs`).
VIEWS = tuple(n for n in _ORDER if n in _VIEW_FRONT)
PUBLIC_VIEWS = tuple(v for v in VIEWS if not v.startswith("_"))
# Table macros (parametrized views) with their parameters, and scalar macros (they read no table: every catalog
# gets them when it is opened).
TABLE_MACROS = {n: _MACRO_FRONT[n].params for n in _ORDER if n in _MACRO_FRONT and _MACRO_FRONT[n].kind == "table_macro"}
SCALAR_MACROS = {n: f.params for n, f in _MACRO_FRONT.items() if f.kind == "scalar_macro"}
# Read only as a dependency, these stand in as an empty table: kernels_in filters on kernels_in_range only when
# it is given a range name, and the real one would bind the whole NVTX attribution.
STANDINS = {"kernels_in_range": "SELECT CAST(NULL AS BIGINT) AS kernel_id WHERE false"}

# Comments and string literals name no object ('kernel' is a value, "-- kernels: ..." a note).
_NOT_CODE = re.compile(r"'(?:[^']|'')*'|--[^\n]*")
# Nor does a column alias (`count(*) AS kernels`) or a column of a table alias (`a.kernels`): reading the kernels
# view for either would cost a join over every kernel.
_NOT_A_READ = re.compile(r'\bAS\s+("[^"]*"|\w+)|\.\s*"?\w+', re.IGNORECASE)
_NAMES = re.compile(r"\b(" + "|".join(sorted((*VIEWS, *TABLE_MACROS), key=len, reverse=True)) + r")\b")
# Passing a range name to kernels_in needs the real kernels_in_range.
_RANGE_FILTER = re.compile(r"range_name\s*:=\s*'")
# Queries that list the catalog see every object.
_INTROSPECTION = re.compile(r"\b(duckdb_views|duckdb_functions|duckdb_tables|information_schema|sqlite_master|"
                            r"show\s+(all\s+)?tables)\b", re.IGNORECASE)


def body(name: str) -> str:
    """The SQL of a view or table macro."""
    return sql_files.read("views" if name in VIEWS else "macros", name).text


@cache
def dependencies() -> dict[str, tuple[str, ...]]:
    """{object: the views and table macros it needs (its front matter)}."""
    fronts = {**_VIEW_FRONT, **_MACRO_FRONT}
    return {name: tuple(sorted(n for n in fronts[name].needs if n in VIEWS or n in TABLE_MACROS))
            for name in (*VIEWS, *TABLE_MACROS)}


@cache
def reads_table_macro(name: str) -> bool:
    """Whether a view reads a table macro, itself or through another view (an attached profile has none)."""
    return any(d in TABLE_MACROS or reads_table_macro(d) for d in dependencies()[name])


def wanted_by(query: str) -> set[str]:
    """The objects a query names (all of them for a query over the catalog)."""
    if _INTROSPECTION.search(query):
        return set(VIEWS) | set(TABLE_MACROS)
    names = _named_in(query)
    if _RANGE_FILTER.search(query):
        names.add("kernels_in_range")
    return names


def named_in(sql: str) -> set[str]:
    """The views and table macros that a piece of SQL reads (what a file's `needs` must hold of them)."""
    return _named_in(sql)


def _named_in(sql: str) -> set[str]:
    return set(_NAMES.findall(_NOT_A_READ.sub(" ", _NOT_CODE.sub(" ", sql))))


def lists_catalog(query: str) -> bool:
    """Whether a query lists the catalog (it then sees every object)."""
    return bool(_INTROSPECTION.search(query))
