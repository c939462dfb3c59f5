"""What a cache holds, what each part reads, and the salt that makes a new release ignore older caches.

One Parquet file per part (parts.py), in the profile's cache folder:
    <TABLE>.parquet  a raw table as the compat layer types it (NULL columns and an empty table where the export
                     lacks them); `rowid` is a column. The kernel table is stored without the rows no duration
                     can come from, their counts in its metadata (bad_no_end, ...)
    <VIEW>.parquet   a decoded view that most reports read and that costs a join or a grouping over every event,
                     computed once (pid/tid decoded, names resolved, launching calls joined)
Each file's key-value metadata (meta_rows) holds the profile it came from and the versions that wrote it.
"""

from __future__ import annotations

import hashlib
import re
import time
from functools import cache
from pathlib import Path

FORMAT_VERSION = "6"
KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
# The kernel table's launch-configuration columns: read only by `kernels --by-launch-config`, the kernels view and
# the timeline, and two thirds of what copying the table decodes. A first copy leaves them out (the part
# CUPTI_ACTIVITY_KIND_KERNEL.core); a query that reads one of them gets the whole table copied
# (CUPTI_ACTIVITY_KIND_KERNEL), which every later query then reads. The context id is not one: diagnose reads it.
LAUNCH_COLUMNS = ("launchType", "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                  "staticSharedMemory", "dynamicSharedMemory", "localMemoryTotal", "graphNodeId", "graphId")
CORE = f"{KERNEL_TABLE}.core"
NOT_CACHED = "is not in the core kernel copy of the cache"  # the error a read of a left-out column raises
_LAUNCH = re.compile(r"\b(" + "|".join(LAUNCH_COLUMNS) + r")\b")
# Objects that name launch columns but whose queries mostly project them away: they read the core copy, and a
# query that does read one is run again on the whole table (Profile.sql).
PROJECTED = ("kernels_in",)
# Views stored as tables, built the first time a query reads them. The kernel table is stored without its bad rows
# (bad_rows.py), so views over it can be stored too.
MATERIALIZED = ("_launch_threads", "cuda_api", "kernels", "_range_ops", "_kernel_name_stats", "_kernel_launch_stats",
                "_kernel_durations", "_range_durations", "_nvtx_kernel_stats", "_nvtx_range_projection",
                "_nvtx_kernel_stats_process", "_nvtx_kernel_stats_gpu")
# Stored views that read a stored _range_ops when it is there but do not build it first: the first `nvtx-kernels`
# joins each operation to its launch inside its own grouping, which costs less than writing 12 M joined rows to a
# file and reading them back (10 M kernels from an empty cache, load 3: 51 s of CPU with the stored join, 32 s
# without). With each, the raw tables its filters never read (nvtx-kernels: kernels only, no graph executions),
# and the API call tables, which its join reads once: they are not copied for it; its build reads them from the
# export, where its filters prune the first ones (copying the calls first and reading the copy cost more: 3 M
# kernels from an empty cache 5.1-5.9 s, reading them in the join 3.7-4.0 s; 10 M 15.5 s, 14.9-15.3 s). A later
# command that reads the calls copies them then.
_NOT_COPIED_FIRST = ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
                     "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER")
INLINE_FIRST = {
    "_nvtx_kernel_stats": _NOT_COPIED_FIRST,
    "_nvtx_kernel_stats_process": _NOT_COPIED_FIRST,
}
# Stored views built on at most this many DuckDB threads: each thread holds its own hash tables, and these groupings
# are bound by memory (nvtx_kernel_groups with --attribution gpu at 50 M kernels under 1 GB: 35.8 s on one thread,
# 27.8 s on two, out of memory on four or eight after 46-60 s; at 20 M 11.3-13.6 s on one, 5.7-6.3 s on two).
# Out of memory on more than one, cache/store.py builds it again on one.
THREADS = {"_nvtx_kernel_stats_gpu": 2}
# Stored views built with a larger DuckDB pool than every other query's (database.MEMORY_LIMIT), in the build's own
# connection: their groupings fit it where they spill under 1 GB, and the process stays under 2 GiB. --attribution
# gpu at 50 M kernels: 34.2 s and 1.10 GiB under 1 GB, 15.0 s and 1.53 GiB under 1.5 GB (bench/README.md, "The gpu
# attribution's pool"); at 10 M the same time. nvtx-gpu's projection at 50 M: 9.8-10.0 s and 1.20 GiB under 1 GB,
# 8.4-8.5 s and 1.56 GiB under 1.5 GB ("Starved gaps in slices of time"). Out of memory in it, cache/store.py
# builds the view again in the default pool. NSYS_ANALYTICS_MEMORY, when set, wins.
POOL = {"_nvtx_kernel_stats_gpu": "1.5GB", "_nvtx_range_projection": "1.5GB"}
_COMPAT = re.compile(r'\bcompat\."?([A-Za-z_][A-Za-z0-9_]*)')


def tables_named(sql: str) -> set[str]:
    """The raw tables a piece of SQL reads through compat.<TABLE>."""
    from ..raw_schema import RAW_TABLES

    return {t for t in _COMPAT.findall(sql) if t in RAW_TABLES}


@cache
def views_of(view: str) -> tuple[str, ...]:
    """The view and every view and table macro it reads, each view after what it reads (the macros last)."""
    from ..schema_objects import TABLE_MACROS, VIEWS, dependencies

    deps = dependencies()
    wanted: set[str] = set()

    def add(name: str) -> None:
        if name not in wanted:
            wanted.add(name)
            for d in deps[name]:
                add(d)

    add(view)
    return tuple(v for v in (*VIEWS, *TABLE_MACROS) if v in wanted)


@cache
def tables_of(view: str) -> tuple[str, ...]:
    """The raw tables a decoded view is computed from."""
    from ..schema_objects import body

    return tuple(sorted(set().union(*(tables_named(body(v)) for v in views_of(view)))))


@cache
def build_plan(view: str, built: frozenset[str] = frozenset()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """How a decoded view is built when the decoded views `built` are in the cache: (the views and table macros
    computed, each view after what it reads, the macros last; the raw tables those read). What it reads that is
    built is read from its cache file (the store builds those first, except for an INLINE_FIRST view:
    _nvtx_range_projection reads the stored _range_ops instead of joining every GPU operation to its launch again in
    the same query); what is not (not built yet, or a build that failed) is computed here."""
    from ..schema_objects import TABLE_MACROS, VIEWS, body, dependencies

    deps = dependencies()
    computed: set[str] = set()

    def add(name: str) -> None:
        if name in computed or (name != view and name in built):
            return
        computed.add(name)
        for d in deps[name]:
            add(d)

    add(view)
    order = tuple(v for v in (*VIEWS, *TABLE_MACROS) if v in computed)
    return order, tuple(sorted(set().union(*(tables_named(body(v)) for v in order))))


def stored_inputs(view: str) -> tuple[str, ...]:
    """The other decoded views a decoded view reads."""
    return tuple(v for v in views_of(view) if v != view and v in MATERIALIZED)


def reads_launch_columns(sql: str) -> bool:
    """Whether SQL that reads the kernel table names one of its launch-configuration columns."""
    return KERNEL_TABLE in tables_named(sql) and bool(_LAUNCH.search(sql))


@cache
def needs_whole_kernels(view: str) -> bool:
    """Whether a decoded view reads the kernel table's launch-configuration columns."""
    from ..schema_objects import body

    return any(reads_launch_columns(body(v)) for v in views_of(view))


def core_select(source: str) -> str:
    """The compat kernel table over a core copy (`source`: the FROM item that reads it): a launch column is an
    error when a query reads it."""
    from ..raw_schema import RAW_TABLES

    cols = [f'CAST(error(\'{c} {NOT_CACHED}\') AS BIGINT) AS "{c}"' if c in LAUNCH_COLUMNS else f'"{c}"'
            for c in RAW_TABLES[KERNEL_TABLE]]
    return f'SELECT {", ".join(cols)} FROM {source}'


@cache
def salt() -> str:
    """Changes whenever a cache's content would: the format, DuckDB, the raw columns, the stored views' SQL."""
    from ...core.duckdb_engine import duckdb
    from ..raw_schema import RAW_TABLES
    from ..schema_objects import body

    h = hashlib.sha256(f"{FORMAT_VERSION}\0{duckdb.__version__}\0{sorted(RAW_TABLES.items())}\0{LAUNCH_COLUMNS}"
                       .encode())
    for view in MATERIALIZED:
        for name in views_of(view):
            h.update(body(name).encode())
    return h.hexdigest()[:16]


def meta_rows(sqlite_path: Path | None) -> dict[str, str]:
    from ...core.duckdb_engine import duckdb

    rows = {"format": salt(), "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "duckdb": duckdb.__version__}
    if sqlite_path is not None:
        st = sqlite_path.stat()
        rows |= {"profile": str(sqlite_path.resolve()), "profile_size": str(st.st_size),
                 "profile_mtime_ns": str(st.st_mtime_ns)}
    return rows
