"""The views and table macros of the normalized schema, what each one reads, and which of them a query needs.

Binding a view costs DuckDB about a millisecond per view it reads, and the NVTX attribution views read many: a
profile creates each object on the first query that needs it, after the objects it reads."""

from __future__ import annotations

import re
from functools import cache

from . import sql_files

# In an order where each view comes after the views it reads.
VIEWS = (
    "strings", "threads", "processes", "_launch_threads", "_kernel_rows", "kernels", "_kernel_name_stats",
    "_kernel_durations", "cuda_api", "nvtx_events",
    "memcpy", "memset", "graph_executions", "syncs", "devices", "session",
    "_nvtx_range_times", "_nvtx_ranges", "_range_durations", "_range_ops", "_range_keys", "_range_grid", "_range_buckets",
    "_op_ranges_launch", "_op_ranges_gpu", "_op_ranges", "_range_parents", "_range_tree", "kernel_ranges",
    "_nvtx_kernel_stats", "_nvtx_kernel_stats_process", "_nvtx_kernel_stats_gpu", "_nvtx_range_projection",
)
PUBLIC_VIEWS = tuple(v for v in VIEWS if not v.startswith("_"))
# Table macros (parametrized views) with their parameters.
TABLE_MACROS = {
    "kernels_in": ("name_kind", "want_device", "want_stream", "want_pid", "from_ns", "to_ns", "name_regex",
                   "range_name := NULL", "exclude_range_name := NULL", "range_mode := 'thread'", "with_graphs := false"),
    "kernels_in_range": ("pattern", "want_mode"),
    "nvtx_attributed_ops": ("want_mode", "innermost_only", "with_graphs := false"),
    "nvtx_projection": ("want_mode", "innermost_only", "with_graphs := false"),
    "nvtx_kernel_groups": ("want_mode", "innermost_only", "kernel_name_kind", "with_graphs"),
    "steady_ops": ("step_pattern", "warmup_pattern", "after_ns"),
}
# Scalar macros read no table: every catalog gets them when it is opened.
SCALAR_MACROS = {"exact_variance": ("x",), "mem_kind": ("k",)}
# Read only as a dependency, these stand in as an empty table: kernels_in filters on kernels_in_range only when
# it is given a range name, and the real one would bind the whole NVTX attribution.
STANDINS = {"kernels_in_range": "SELECT CAST(NULL AS BIGINT) AS kernel_id WHERE false"}

# Objects a body reads through query_table('name'), which the scan of its code cannot see.
_READ_BY_STRING = {"nvtx_attributed_ops": ("_op_ranges_launch", "_op_ranges_gpu")}
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
    """{object: the views and table macros its SQL names}."""
    return {name: tuple(sorted((_named_in(body(name)) | set(_READ_BY_STRING.get(name, ()))) - {name}))
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


def _named_in(sql: str) -> set[str]:
    return set(_NAMES.findall(_NOT_A_READ.sub(" ", _NOT_CODE.sub(" ", sql))))


def lists_catalog(query: str) -> bool:
    """Whether a query lists the catalog (it then sees every object)."""
    return bool(_INTROSPECTION.search(query))
