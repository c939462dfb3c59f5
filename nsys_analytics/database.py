"""DuckDB connections with the SQLite reader loaded from its installed wheel (never downloaded)."""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from .errors import ProfileError


def _sqlite_extension_path() -> Path:
    import duckdb_extension_sqlite_scanner as pkg

    found = sorted(Path(pkg.__file__).parent.glob(f"extensions/v{duckdb.__version__}/*.duckdb_extension"))
    if not found:
        raise ProfileError(
            f"the installed duckdb-extension-sqlite-scanner does not match duckdb {duckdb.__version__}; "
            "reinstall nsys-analytics (pip install -e .)"
        )
    return found[0]


# DuckDB's own buffer pool; the process peaks a few hundred MiB above it (Python, results, DuckDB's allocations
# outside the pool). Larger joins and sorts spill to the cache folder. NSYS_ANALYTICS_MEMORY overrides it.
MEMORY_LIMIT = "1GB"


def connect(path: str = ":memory:") -> duckdb.DuckDBPyConnection:
    """A DuckDB (in memory, or the file `path`) that can read SQLite files and will not fetch anything from the
    network, with bounded memory."""
    from .cache.folder import cache_dir

    # The SQLite reader is the file the duckdb-extension-sqlite-scanner wheel installed, loaded by its path.
    # Checking its signature hashes all 35 MB on every start (65 ms, a sixth of a whole `kernels` run on a
    # million kernels), so that check is skipped; nothing is ever installed or loaded automatically.
    con = duckdb.connect(path, config={
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "allow_community_extensions": False,
        "allow_unsigned_extensions": True,
        # Spill large joins to the cache folder, not to `.tmp/` in the user's working directory.
        "temp_directory": str(cache_dir() / "duckdb-tmp"),
        "memory_limit": os.environ.get("NSYS_ANALYTICS_MEMORY") or MEMORY_LIMIT,
        # Results are ordered by ORDER BY, never by the order rows happen to be produced in: that freedom lets
        # DuckDB stream instead of buffering, and a cache build copy a table in half the time.
        "preserve_insertion_order": False,
    })
    con.execute(f"LOAD '{_sqlite_extension_path()}'")
    # DuckDB draws its progress bar on stdout, into tables and CSV; progress.py shows long work on stderr.
    con.execute("SET enable_progress_bar = false")
    _open.add(con)
    return con


@contextmanager
def memory_limit(con: duckdb.DuckDBPyConnection, limit: str) -> Iterator[None]:
    """DuckDB's memory limit set to `limit` while the block runs, for a command whose own arrays sit beside the
    pool; NSYS_ANALYTICS_MEMORY, when set, wins."""
    if os.environ.get("NSYS_ANALYTICS_MEMORY"):
        yield
        return
    con.execute(f"SET memory_limit = '{limit}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")


_open: weakref.WeakSet = weakref.WeakSet()  # connections a Ctrl-C interrupts


def interrupt_all() -> None:
    """Interrupt the queries running on every open connection (from another thread, while the main one waits in a
    query: interrupt() during the same connection's close() can deadlock)."""
    for con in list(_open):
        try:
            con.interrupt()
        except duckdb.Error:  # closed meanwhile
            pass


def close(con: duckdb.DuckDBPyConnection) -> None:
    """Close a connection made by `connect()`. A query stopped by Ctrl-C can leave DuckDB's threads running it,
    and close() would wait for them to finish: they are interrupted first."""
    _open.discard(con)
    con.interrupt()
    con.close()


def attach_sqlite(con: duckdb.DuckDBPyConnection, path: Path, alias: str) -> None:
    """Attach an SQLite file read-only under `alias`."""
    con.execute(f"ATTACH {_quote(str(path))} AS {_ident(alias)} (TYPE sqlite, READ_ONLY)")


def store_arrays(con: duckdb.DuckDBPyConnection, table: str, columns: dict, types: dict[str, str]) -> None:
    """Create (or replace) `table` from numpy arrays, {column: array} (DuckDB reads a dict of arrays itself), each
    column cast to its SQL type in `types`."""
    view = "_arrays_" + table.replace(".", "_")
    con.register(view, columns)
    try:
        casts = ", ".join(f"CAST({c} AS {types[c]}) AS {c}" for c in columns)
        con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT {casts} FROM {view}")
    finally:
        con.unregister(view)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
