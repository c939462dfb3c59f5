"""Build one cache file (a raw table or a decoded view): written under a temporary name, renamed when complete.

Two processes building the same file at once each write their own temporary file and both rename it into place
(the same content; the later rename wins, and a reader that opened the earlier file keeps reading it). A build
that is killed leaves only its temporary file, which no reader opens and the next build removes.
"""

from __future__ import annotations

import os
import re
import secrets
from contextlib import contextmanager
from pathlib import Path

from ...core import progress
from . import layout, parts
from .facts import stat_key
from ...core.files import pid_alive

_TMP = re.compile(r"\.(\d+)\.[0-9a-f]{8}\.tmp(\.all)?$")  # .NAME.PID.TOKEN.tmp[.all]


def build_table(sqlite_path: Path, raw_columns: dict[str, set[str]], table: str, target: Path,
                core: bool = False) -> bool:
    """compat.<table> of the export, as the compat layer types it (rows in any order: every query orders its
    results itself, and ties are broken by explicit keys such as rowid). The kernel table without its bad rows;
    `core`: without its launch-configuration columns (layout.LAUNCH_COLUMNS), unless rows may repeat each other
    (whether they do is decided on every column): then nothing is built and False returned."""
    from .. import database
    from ..raw_schema import RAW_TABLES, compat_select

    columns = RAW_TABLES[table]
    if core:
        columns = {c: t for c, t in columns.items() if c not in layout.LAUNCH_COLUMNS}
    before = stat_key(sqlite_path)
    with _atomic(target, f"caching {table} of {sqlite_path.name} (once)") as tmp:
        con = database.connect()
        try:
            database.attach_sqlite(con, sqlite_path, "raw")
            select = compat_select(raw_columns, "raw", table, columns)
            meta = layout.meta_rows(sqlite_path)
            if table == layout.KERNEL_TABLE:
                _sound_kernels(con, select, table in raw_columns, core, tmp, meta)
            else:
                parts.write(con, select, tmp, meta)
        finally:
            con.close()
        if stat_key(sqlite_path) != before:  # the profile changed while it was read: keep nothing
            raise _Changed()
    return target.exists()


def _sound_kernels(con, select: str, present: bool, core: bool, tmp: Path, meta: dict[str, str]) -> None:
    """The kernel table without the rows no duration can come from (bad_rows.py) to `tmp`, their counts in its
    metadata (bad_no_end, ...). Counted on a first copy: a columnar scan, not a second read of the export; the
    copy is the part itself when every row is sound."""
    from .. import bad_rows

    every = tmp.with_name(f"{tmp.name}.all")
    try:
        parts.write(con, select, every, meta)
        copy = parts.source(con, every)
        bad = bad_rows.count(con, copy, exact=not core) if present else bad_rows.BadRows()
        if bad is None:
            raise _Changed()  # rows may repeat, which only every column can tell: the whole table is copied instead
        if bad.total:
            parts.write(con, bad_rows.valid_select(copy, bad), tmp,
                        meta | {f"bad_{k}": str(v) for k, v in vars(bad).items()})
        else:
            os.replace(every, tmp)
    finally:
        every.unlink(missing_ok=True)


def build_decoded(view: str, inputs: dict[str, Path], target: Path, decoded: dict[str, Path] | None = None,
                  from_export: tuple[Path, dict[str, set[str]], list[str]] | None = None,
                  threads: int | None = None, pool: str | None = None) -> None:
    """decoded.<view>: the view's own SQL run once over the cached raw tables it reads, and over the cache's tables
    of the decoded views it reads (`decoded`, layout.build_plan). `from_export`: (the export, its raw columns, raw
    tables read from it instead of a cache file: those the view's filters prune, layout.INLINE_FIRST). `threads`:
    DuckDB's threads (default: one per core). `pool`: DuckDB's memory limit (default: database.MEMORY_LIMIT;
    NSYS_ANALYTICS_MEMORY, when set, wins)."""
    from .. import database, schema_objects, sql_files
    from ..raw_schema import RAW_TABLES, compat_select

    decoded = decoded or {}
    sqlite_path, raw_columns, uncopied = from_export or (None, {}, [])
    with _atomic(target, f"decoding {view} (once)") as tmp:
        con = database.connect()
        try:
            if threads:
                con.execute(f"SET threads = {int(threads)}")
            if pool:
                database.set_pool(con, pool)
            con.execute("CREATE SCHEMA compat")
            if uncopied:
                database.attach_sqlite(con, sqlite_path, "raw")
            for table in uncopied:
                con.execute(f'CREATE VIEW compat."{table}" AS {compat_select(raw_columns, "raw", table, RAW_TABLES[table])}')
            for table, path in inputs.items():
                select = f"SELECT * FROM {parts.source(con, path)}"
                if path.name == f"{layout.CORE}{parts.SUFFIX}":  # a core kernel copy: its launch columns are errors
                    select = layout.core_select(parts.source(con, path))
                con.execute(f'CREATE VIEW compat."{table}" AS {select}')
            for name, path in decoded.items():
                con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM {parts.source(con, path)}")
            # the counts of the kernel rows this view was computed without, from the kernel table or a decoded
            # view made from it
            extra = {}
            for path in [p for t, p in inputs.items() if t == layout.KERNEL_TABLE] + list(decoded.values()):
                extra |= {k: v for k, v in parts.meta(con, path).items() if k.startswith("bad_")}
            for macro, args in schema_objects.SCALAR_MACROS.items():
                con.execute(f"CREATE TEMP MACRO {macro}({', '.join(args)}) AS ({sql_files.read('macros', macro).text})")
            computed = layout.build_plan(view, frozenset(decoded))[0]
            for name in computed:  # table macros first: a view is bound when it is created, a macro when called
                if name in schema_objects.TABLE_MACROS:
                    args = ", ".join(schema_objects.TABLE_MACROS[name])
                    con.execute(f"CREATE TEMP MACRO {name}({args}) AS TABLE {schema_objects.body(name)}")
            for name in computed:
                if name not in schema_objects.TABLE_MACROS:
                    con.execute(f"CREATE TEMP VIEW {name} AS {schema_objects.body(name)}")
            parts.write(con, f"SELECT * FROM temp.main.{view}", tmp, layout.meta_rows(None) | extra,
                        in_time_order=True)
        finally:
            con.close()


class _Changed(Exception):
    pass


@contextmanager
def _atomic(target: Path, what: str):
    """Yield a temporary path beside `target`; rename it to `target` if the block completes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_orphans(target.parent)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with progress.showing(what):
            yield tmp
        parts.seal(tmp, target)
        os.replace(tmp, target)
    except _Changed:
        pass
    finally:
        tmp.unlink(missing_ok=True)


def remove_orphans(folder: Path) -> None:
    """Remove temporary files of builds whose process is gone (killed, or crashed): a part being written and the
    digest being written beside it (parts.seal's `.partial`)."""
    from .orphans import remove_partials

    for tmp in folder.glob(".*.tmp*"):
        m = _TMP.search(tmp.name)
        if m and not pid_alive(int(m.group(1))):
            tmp.unlink(missing_ok=True)
    remove_partials(folder)
