"""`Profile`: one nsys export opened read-only and exposed as the normalized schema in DuckDB.

Data access only (open, views, `sql`, `df`); the reports' convenience calls live in api.py's `Profile`."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from . import cache, columnar, database, progress, schema_objects, source, sql_files
from .errors import MissingDataError, ProfileError, QueryError, UsageError
from .filters import unknown_range
from .raw_schema import RAW_TABLES, compat_select
from .result import Result
from .schema_objects import SCALAR_MACROS, STANDINS, TABLE_MACROS, VIEWS

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
VALID_KERNEL = 'start IS NOT NULL AND "end" IS NOT NULL AND "end" >= start'


@dataclass(frozen=True)
class BadRows:
    """Kernel rows that no duration can come from, left out of every view and report (README: Bad input)."""

    no_end: int = 0  # no start or no end
    negative: int = 0  # ends before it starts
    duplicates: int = 0  # repeats an earlier row exactly

    @property
    def total(self) -> int:
        return self.no_end + self.negative + self.duplicates

    def note(self) -> str | None:
        """One line for users, like nsys' SKIPPED, or None when every row is sound."""
        if not self.total:
            return None
        parts = [f"{n:,} {what}" for n, what in ((self.no_end, "without an end"),
                                                 (self.negative, "ending before its start"),
                                                 (self.duplicates, "repeating another row exactly")) if n]
        rows = "row" if self.total == 1 else "rows"
        return f"SKIPPED {self.total:,} kernel {rows} in every report: {', '.join(parts)}"


_UNKNOWN_RANGE = re.compile(r"^Invalid Input Error: unknown NVTX range: (.*)$")
_NO_RANGES = "Invalid Input Error: the profile has no NVTX ranges"
_DAMAGE = ("malformed", "not a database", "disk I/O error", "file is not a database")
BATCH_ROWS = 20_000  # rows per batch of a streamed result
_ALIAS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Profile:
    """An nsys profile opened read-only. Query the normalized views with `sql()` / `df()`.

    >>> p = nsys_analytics.open("run.sqlite")
    >>> p.df("SELECT name, sum(duration_ns) FROM kernels GROUP BY name")
    """

    def __init__(self, path: str | Path, con: duckdb.DuckDBPyConnection | None = None, alias: str = "main"):
        self.path = Path(path)
        self.sqlite_path = source.resolve(self.path)  # a parquetdir/arrowdir export: the folder (columnar.py)
        self.columnar = self.sqlite_path.is_dir()
        self.alias = alias
        self.con = con if con is not None else database.connect()
        self.raw_columns = {} if self.columnar else _raw_columns(self.sqlite_path)
        self._created: set[str] = set()  # views and table macros made so far (main profile: on first use)
        self.bad_kernel_rows = BadRows()  # kernel rows the views leave out
        # The columnar cache (docs/cache.md), for the main profile; an attached one or a columnar export is read
        # directly.
        self._cache = cache.reader(self.con, self.sqlite_path, self.raw_columns,
                                   use=alias == "main" and not self.columnar)
        self._build(alias)

    # -- construction -------------------------------------------------------------------------
    def _build(self, alias: str) -> None:
        catalog = "memory" if alias == "main" else alias
        raw = "raw" if alias == "main" else f"{alias}_raw"
        if alias != "main":
            self.con.execute(f'ATTACH \':memory:\' AS "{alias}"')
        try:
            if self.columnar:
                self.raw_columns = {t: c for t, c in columnar.attach(self.con, self.sqlite_path, raw).items()
                                    if t in RAW_TABLES}
            else:
                database.attach_sqlite(self.con, self.sqlite_path, raw)
            self._create_views(catalog, raw)
        except duckdb.Error as e:
            raise ProfileError(f"{self.sqlite_path}: cannot be read ({_first_line(e)}); re-export it") from e

    def _create_views(self, catalog: str, raw: str) -> None:
        self.con.execute(f'CREATE SCHEMA "{catalog}".compat')
        for table, columns in RAW_TABLES.items():
            select = self._compat_select(raw, table, columns)
            if table == KERNEL_TABLE:
                select = self._valid_kernels(catalog, select)
            self.con.execute(f'CREATE VIEW "{catalog}".compat."{table}" AS {select}')
        for macro, args in SCALAR_MACROS.items():  # no table in them: every catalog gets its own
            body = sql_files.read("macros", macro).text
            self.con.execute(f'CREATE MACRO "{catalog}".main.{macro}({", ".join(args)}) AS ({body})')
        if catalog != "memory":  # an attached profile: its views now; macros bind names in the main catalog only
            for view in VIEWS:
                self.con.execute(f'CREATE VIEW "{catalog}".main.{view} AS {schema_objects.body(view)}')

    def _ensure_objects(self, query: str) -> None:
        """Create the views and table macros the query names, and what they read, the first time one is needed."""
        if self.alias == "main":
            names = sorted(schema_objects.wanted_by(query))
            plan: dict[str, None] = {}
            for name in names:
                self._plan(name, True, plan)
            self._cache.prepare(query, list(plan), build=not schema_objects.lists_catalog(query))
            for name in names:
                self._ensure(name, named=True)

    def _plan(self, name: str, named: bool, plan: dict[str, None]) -> None:
        """The objects _ensure(name) will create, in `plan` (the cache then builds what they read)."""
        if name in self._created or name in plan or (name in STANDINS and not named):
            return
        plan[name] = None
        if not self._cache.decodes(name):
            for dependency in schema_objects.dependencies()[name]:
                self._plan(dependency, False, plan)

    def _ensure(self, name: str, named: bool) -> None:
        if name in self._created:
            return
        if name in STANDINS and not named:  # only read as a dependency: an empty stand-in until a query names it
            self._create_object(name, STANDINS[name], replace=True)
            return
        decoded = self._cache.body(name)  # the cache's table of a decoded view: it reads nothing else
        for dependency in schema_objects.dependencies()[name] if decoded is None else ():
            self._ensure(dependency, named=False)
        self._create_object(name, decoded or schema_objects.body(name), replace=name in STANDINS)
        self._created.add(name)

    def _create_object(self, name: str, body: str, replace: bool) -> None:
        create = "CREATE OR REPLACE" if replace else "CREATE"
        if name in TABLE_MACROS:
            args = ", ".join(TABLE_MACROS[name])
            self.con.execute(f"{create} MACRO memory.main.{name}({args}) AS TABLE {body}")
        else:
            self.con.execute(f"{create} VIEW memory.main.{name} AS {body}")

    def _valid_kernels(self, catalog: str, select: str) -> str:
        """The kernel table without the rows no duration can come from (no end, an end before the start, an exact
        repeat), counted once per version of the file into `bad_kernel_rows`: every view and report reads kernels
        through this one."""
        self.con.execute(f'CREATE VIEW "{catalog}".compat._all_kernels AS {select}')
        if KERNEL_TABLE in self.raw_columns:
            counts = source.cached_json(self.sqlite_path, "kernel-checks", lambda: self._count_bad_kernels(catalog))
            self.bad_kernel_rows = BadRows(**counts)
        valid = f'SELECT * FROM "{catalog}".compat._all_kernels WHERE {VALID_KERNEL}'
        if self.bad_kernel_rows.duplicates:
            columns = ", ".join(f'"{c}"' for c in RAW_TABLES[KERNEL_TABLE] if c != "rowid")
            valid += f" QUALIFY row_number() OVER (PARTITION BY {columns} ORDER BY rowid) = 1"
        return valid

    def _count_bad_kernels(self, catalog: str) -> dict[str, int]:
        def run(name: str) -> tuple:
            check = sql_files.read("checks", name).text.replace("compat.", f'"{catalog}".compat.')
            return self.con.execute(check).fetchone()

        with progress.showing(f"checking the kernel rows of {self.path.name} (once)"):
            no_end, negative, candidates = run("bad_kernel_rows")
            (duplicates,) = run("kernel_repeats") if candidates else (0,)
        return {"no_end": no_end, "negative": negative, "duplicates": duplicates}

    def _compat_select(self, raw: str, table: str, columns: dict[str, str]) -> str:
        return compat_select(self.raw_columns, raw, table, columns)

    # -- queries ------------------------------------------------------------------------------
    def sql(self, query: str, params: dict[str, Any] | None = None, stream: bool = False) -> Result:
        """Run SQL over the normalized views (and `raw.<nsys table>`); return columns and rows.

        `stream`: the rows come as `Result.batches` of BATCH_ROWS, read while the result is written (long
        outputs never sit in Python whole); read them before the next query on this profile."""
        try:
            self._ensure_objects(query)
            with progress.showing(f"querying {self.path.name}"):
                cur = self.con.execute(query, params or {})
            if cur.description is None:
                return Result([], [])
            columns = [d[0] for d in cur.description]
            if stream:
                return Result(columns, [], batches=self._batches(cur))
            return Result(columns, cur.fetchall())
        except duckdb.Error as e:
            raise self._error(e) from e

    def _batches(self, cur):
        try:
            while batch := cur.fetchmany(BATCH_ROWS):
                yield batch
        except duckdb.Error as e:
            raise self._error(e) from e

    def _error(self, e: Exception):
        """A damaged file shows up only when a query reads it: blame the file, not the query."""
        message = _first_line(e)
        if any(s in message for s in _DAMAGE):
            return ProfileError(f"{self.sqlite_path}: is corrupt ({message}); copy it again or re-export it")
        unknown = _UNKNOWN_RANGE.match(message)
        if unknown:  # raised by kernels_in_range
            return unknown_range(unknown.group(1), self.range_names())
        if message.endswith(_NO_RANGES):
            return MissingDataError(f"{self.path}: has no NVTX ranges; annotate the code with NVTX ranges and "
                                    "profile with `nsys profile --trace=cuda,nvtx`")
        return QueryError(f"SQL error: {message}")

    def range_names(self) -> list[str]:
        """The names of the profile's NVTX ranges as nsys prints them (':forward', 'train_loop:step_0')."""
        return [name for (name,) in self.sql("SELECT DISTINCT name FROM _nvtx_ranges ORDER BY name").rows]

    def df(self, query: str, params: dict[str, Any] | None = None):
        """Like `sql()`, as a pandas DataFrame."""
        return self.sql(query, params).to_pandas()

    def run_file(self, folder: str, name: str, params: dict[str, Any] | None = None, stream: bool = False) -> Result:
        """Run one of the shipped queries in sql/<folder>/<name>.sql with `$name` parameters."""
        return self.sql(sql_files.inline_params(sql_files.read(folder, name).text, params or {}), stream=stream)

    def has_table(self, raw_table: str) -> bool:
        return raw_table in self.raw_columns

    def attach(self, path: str | Path, alias: str) -> Profile:
        """Open another profile on the same connection; its views live under `alias.` (e.g. `b.kernels`)."""
        check_alias(alias)
        # DuckDB's common-subplan optimizer takes scans of two attached SQLite files with the same tables
        # for the same scan (seen with DuckDB 1.5.5): every cross-profile query would read one file twice.
        self.con.execute("SET disabled_optimizers = 'common_subplan'")
        return type(self)(path, con=self.con, alias=alias)

    def close(self) -> None:
        database.close(self.con)

    def __enter__(self) -> "Profile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Profile({str(self.path)!r})"


def check_alias(alias: str) -> None:
    """An alias names a catalog: letters, digits and _, and none of DuckDB's or ours."""
    if not _ALIAS.match(alias) or alias in ("main", "raw", "compat", "memory", "system", "temp"):
        raise UsageError(f"alias {alias!r}: use letters, digits and _ and not a reserved name")


def _raw_columns(path: Path) -> dict[str, set[str]]:
    """{raw table: its columns} for the tables the compat layer reads, read once with sqlite3."""
    con = source.connect_readonly(path)
    try:
        present = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {
            t: {row[1] for row in con.execute(f'PRAGMA table_info("{t}")')}
            for t in RAW_TABLES if t in present
        }
    except sqlite3.DatabaseError as e:
        raise ProfileError(f"{path}: is corrupt ({e}); copy it again or re-export it") from e
    finally:
        con.close()


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
