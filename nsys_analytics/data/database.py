"""DuckDB connections with the SQLite reader loaded from its installed wheel (never downloaded)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..core.duckdb_engine import duckdb
from ..core.errors import OutOfMemoryError, ProfileError, UsageError


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
MEMORY_VARIABLE = "NSYS_ANALYTICS_MEMORY"
_ALLOCATION = re.compile(r"out of memory|allocation failure|bad allocation|failed to allocate|failed to map segment",
                         re.IGNORECASE)
_SIZE = re.compile(r"^\s*\d+(\.\d+)?\s*([KMGT]i?B|B)\s*$", re.IGNORECASE)


def memory_setting() -> str:
    """DuckDB's memory limit: NSYS_ANALYTICS_MEMORY when set (checked: a size such as 4GB), else MEMORY_LIMIT."""
    value = os.environ.get(MEMORY_VARIABLE)
    if not value:
        return MEMORY_LIMIT
    if not _SIZE.match(value) or float(re.sub(r"[^\d.]", "", value)) <= 0:
        raise UsageError(f"{MEMORY_VARIABLE}={value!r}: give the memory DuckDB may use as a size, e.g. 4GB or 512MiB")
    return value.strip()


def memory_error(e: BaseException) -> OutOfMemoryError | None:
    """One line for running out of memory (DuckDB's limit, Python's MemoryError, or no thread could be started under
    an address-space limit), saying what the command needed or the limit it hit, and what to set; None for other
    errors."""
    limit, text = _address_limit(), _first_line(e)
    if isinstance(e, duckdb.OutOfMemoryException) and "used)" in text:  # DuckDB's own limit: "(1.9 GiB/2.0 GiB used)"
        needed = text.split("Out of Memory Error:")[-1].strip()
        return OutOfMemoryError(f"out of memory: DuckDB may use {memory_setting()} and the command needed more "
                                f"({needed}); set {MEMORY_VARIABLE} higher (e.g. {MEMORY_VARIABLE}=8GB), within the "
                                "machine's free memory")
    # Otherwise the process ran out before DuckDB's limit (`ulimit -v`, or the machine): an allocation failed anywhere
    # (DuckDB's "bad allocation", SQLite's "out of memory", Python's MemoryError, a thread's stack, a module that
    # could not be imported).
    failed = (isinstance(e, (MemoryError, duckdb.OutOfMemoryException))
              or (isinstance(e, RuntimeError) and "can't start new thread" in text)
              or (isinstance(e, duckdb.Error) and _ALLOCATION.search(text) is not None)
              or (limit is not None and isinstance(e, duckdb.InvalidInputException) and "wasn't installed" in text))
    if not failed:
        return None
    if limit is None:
        return OutOfMemoryError(f"out of memory: the machine could not give the memory the command needed "
                                f"({text}); DuckDB may use {memory_setting()}: set {MEMORY_VARIABLE} lower "
                                f"(e.g. {MEMORY_VARIABLE}=512MB) or free memory")
    suggest = max(64, int(limit / 2**20 / 2))
    return OutOfMemoryError(f"out of memory: the process hit its address-space limit of {limit / 2**30:.2f} GiB "
                            f"(ulimit -v) while DuckDB may use {memory_setting()} ({text}); set "
                            f"{MEMORY_VARIABLE} well below the limit (e.g. {MEMORY_VARIABLE}={suggest}MB) or raise it")


def _address_limit() -> int | None:
    """The process's address-space limit in bytes (`ulimit -v`), None without one."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def connect(path: str = ":memory:") -> duckdb.DuckDBPyConnection:
    """A DuckDB (in memory, or the file `path`) that will not fetch anything from the network, with bounded memory;
    attach_sqlite() gives it the SQLite reader."""
    from .cache.folder import cache_dir

    # The SQLite reader is the file the duckdb-extension-sqlite-scanner wheel installed, loaded by its path.
    # Checking its signature hashes all 35 MB on every start (65 ms, a sixth of a whole `kernels` run on a
    # million kernels), so that check is skipped; nothing is ever installed or loaded automatically.
    # Spill large joins to the cache folder, not to `.tmp/` in the user's working directory; each connection into a
    # folder of its own: DuckDB names its spill files alike in every instance, and two instances spilling into one
    # folder (diff reads its two sides at once) overwrote each other's files ("Could not read enough bytes", then a
    # segmentation fault, under NSYS_ANALYTICS_MEMORY=32MB in 4 of 16 runs).
    spill = cache_dir() / f".duckdb-tmp-{os.getpid()}-{secrets.token_hex(4)}"  # hidden: no cache part
    con = duckdb.connect(path, config={
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "allow_community_extensions": False,
        "allow_unsigned_extensions": True,
        "temp_directory": str(spill),
        "memory_limit": memory_setting(),
        # Results are ordered by ORDER BY, never by the order rows happen to be produced in: that freedom lets
        # DuckDB stream instead of buffering, and a cache build copy a table in half the time.
        "preserve_insertion_order": False,
    })
    # DuckDB draws its progress bar on stdout, into tables and CSV; progress.py shows long work on stderr.
    con.execute("SET enable_progress_bar = false")
    _open.add(con)
    _spill[id(con)] = spill
    return con


def set_pool(con: duckdb.DuckDBPyConnection, limit: str) -> bool:
    """DuckDB's memory limit set to `limit`, unless NSYS_ANALYTICS_MEMORY is set (the user's limit wins); whether it
    was set."""
    if os.environ.get(MEMORY_VARIABLE):
        return False
    con.execute(f"SET memory_limit = '{limit}'")
    return True


@contextmanager
def memory_limit(con: duckdb.DuckDBPyConnection, limit: str) -> Iterator[None]:
    """DuckDB's memory limit set to `limit` while the block runs, for a command whose own arrays sit beside the
    pool; NSYS_ANALYTICS_MEMORY, when set, wins."""
    if not set_pool(con, limit):
        yield
        return
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")


_open: weakref.WeakSet = weakref.WeakSet()  # connections a Ctrl-C interrupts
_sqlite_loaded: weakref.WeakSet = weakref.WeakSet()  # connections with the SQLite reader loaded
_spill: dict[int, Path] = {}  # each connection's own spill folder, removed when it is closed


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
    spill = _spill.pop(id(con), None)
    if spill is not None:
        shutil.rmtree(spill, ignore_errors=True)


def attach_sqlite(con: duckdb.DuckDBPyConnection, path: Path, alias: str) -> None:
    """Attach an SQLite file read-only under `alias`. The SQLite reader is loaded on the connection's first attach:
    loading it costs a twentieth of a second, and a command answered from the cache never reads the export."""
    if con not in _sqlite_loaded:
        con.execute(f"LOAD '{_sqlite_extension_path()}'")
        _sqlite_loaded.add(con)
    con.execute(f"ATTACH {_quote(str(path))} AS {_ident(alias)} (TYPE sqlite, READ_ONLY)")


def store_arrays(con: duckdb.DuckDBPyConnection, table: str, columns: dict, types: dict[str, str],
                 append: bool = False) -> None:
    """Create (or replace) `table` from numpy arrays, {column: array} (DuckDB reads a dict of arrays itself), each
    column cast to its SQL type in `types`; `append`: add the rows to `table`, made by an earlier call."""
    view = "_arrays_" + table.replace(".", "_")
    con.register(view, columns)
    try:
        casts = ", ".join(f"CAST({c} AS {types[c]}) AS {c}" for c in columns)
        into = f"INSERT INTO {table}" if append else f"CREATE OR REPLACE TABLE {table} AS"
        con.execute(f"{into} SELECT {casts} FROM {view}")
    finally:
        con.unregister(view)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
