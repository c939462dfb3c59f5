"""`Profile`: one nsys export opened read-only and exposed as the normalized schema in DuckDB.

Data access only (open, views, `sql`, `df`); the reports' convenience calls live in api.py's `Profile`."""

from __future__ import annotations

import copy
import hashlib
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.duckdb_engine import duckdb
from . import bad_rows, bad_values, cache, columnar, database, schema_objects, source, sql_files
from ..core import progress
from .bad_rows import KERNEL_TABLE, BadRows
from ..core.errors import MissingDataError, ProfileError, QueryError, UsageError
from ..core.filters import unknown_range
from .raw_schema import NAME_IDS, RAW_TABLES, bad_event_conditions, compat_select, missing_required
from ..core.result import Result
from .schema_objects import SCALAR_MACROS, STANDINS, TABLE_MACROS, VIEWS

_UNKNOWN_RANGE = re.compile(r"^Invalid Input Error: unknown NVTX range: (.*)$")
_NO_RANGES = "Invalid Input Error: the profile has no NVTX ranges"
_DAMAGE = ("malformed", "not a database", "disk I/O error", "file is not a database")
BATCH_ROWS = 20_000  # rows per batch of a streamed result
_ALIAS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A query that reads the export's own tables (`raw.StringIds`): the SQLite file is attached only then.
_READS_RAW = re.compile(r'(?<![\w$."])"?raw"?\s*\.', re.IGNORECASE)
_HELD = "__held"  # the table hold() computes a view into: `_range_ops__held`


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
        self._undecoded: set[str] = set()  # stored views the cache could not give: computed from what they read
        self._compat: set[str] = set()  # compat.<TABLE> views made so far (main profile: on first use)
        self._raw_attached = False
        self._strings = ""  # compat.StringIds as the export has it (before the stand-ins of missing names)
        self._missing_strings: set[int] = set()  # string ids the export names but lacks (_complete_strings)
        self._named_ids: dict[str, list[int]] = {}  # table -> string ids its rows name, where its check found them
        self._made_only = False  # a connection beside another (beside()): reads only what that one made
        self._bad_rows: BadRows | None = None  # kernel rows the views leave out, known once the kernel table is read
        # False: the cache builds nothing for this profile; what it has is read, the rest from the export directly
        # (a first look, such as `info`, that a raw scan answers faster than a cache build)
        self.build_cache = True
        # Called with the bad rows' note (one line) when the kernel table is first read and has bad rows.
        self.on_note: Callable[[str], None] | None = None
        # The columnar cache (docs/cache.md), for the main profile; an attached one or a columnar export is read
        # directly.
        self._cache = cache.reader(self.con, self.sqlite_path, self.raw_columns,
                                   use=alias == "main" and not self.columnar,
                                   decoded=not any(self._where(t) for t in RAW_TABLES))
        self._build(alias)

    # -- construction -------------------------------------------------------------------------
    def _build(self, alias: str) -> None:
        """The main profile gets its compat views, views and macros on the first query that reads them (a cached
        profile then never attaches the export itself unless a query reads `raw.`); an attached one all at once."""
        catalog = "memory" if alias == "main" else alias
        self._raw = "raw" if alias == "main" else f"{alias}_raw"
        if alias != "main":
            self.con.execute(f'ATTACH \':memory:\' AS "{alias}"')
        try:
            if self.columnar or alias != "main" or self._cache.pcache is None:
                self._attach_raw()
            self.con.execute(f'CREATE SCHEMA "{catalog}".compat')
            for macro, args in SCALAR_MACROS.items():  # no table in them: every catalog gets its own
                body = sql_files.read("macros", macro).text
                self.con.execute(f'CREATE MACRO "{catalog}".main.{macro}({", ".join(args)}) AS ({body})')
            if catalog != "memory":  # an attached profile: its views now; macros bind names in the main catalog only
                for table in RAW_TABLES:
                    self._ensure_compat(table, catalog)
                for view in VIEWS:
                    if not schema_objects.reads_table_macro(view):  # the stored report rows (main catalog only)
                        self.con.execute(f'CREATE VIEW "{catalog}".main.{view} AS {schema_objects.body(view)}')
        except duckdb.Error as e:
            raise ProfileError(f"{self.sqlite_path}: cannot be read ({_first_line(e)}); re-export it") from e

    def _attach_raw(self) -> None:
        """The export itself as catalog `raw` (a columnar export: a view per file)."""
        if self._raw_attached:
            return
        if self.columnar:
            self.raw_columns = {t: c for t, c in columnar.attach(self.con, self.sqlite_path, self._raw).items()
                                if t in RAW_TABLES}
        else:
            database.attach_sqlite(self.con, self.sqlite_path, self._raw)
        self._raw_attached = True

    def _ensure_compat(self, table: str, catalog: str = "memory") -> None:
        """compat.<table>: the cache's copy where there is one, else the export's table as the compat layer types
        it. The kernel table is read without its bad rows (bad_rows.py)."""
        if table in self._compat:
            return
        # An event table's rows are checked once per version of the file (_note_events). Read from the export, the
        # check comes first: a table without a bad row is then read without the filter. Read from the cache, it comes
        # after the copy, whose rows prove most tables sound without a scan.
        checked = table in bad_rows.EVENT_NAMES and table in self.raw_columns and self.on_note is not None
        cached = self._cache.select(table)
        if cached is not None:
            select = cached  # stored typed, and the kernel table without its bad rows
            if self._where(table):
                select += f" WHERE {self._where(table)}"
            if table == KERNEL_TABLE:
                self._set_bad_rows(self._cache.bad_rows())
        else:
            self._attach_raw()
            bad = self._note_events(table) if checked else None
            select = self._compat_select(self._raw, table, RAW_TABLES[table],
                                         all_sound=bad is not None and not any(bad.values()))
            if table == KERNEL_TABLE:
                select = self._valid_kernels(catalog, select)
        if table == "StringIds":
            if table in self.raw_columns and not self.columnar and self.on_note is not None:
                self._note_repeated_ids()
            self._strings = select
            select = bad_rows.complete_strings(select, sorted(self._missing_strings))
        self.con.execute(f'CREATE OR REPLACE VIEW "{catalog}".compat."{table}" AS {select}')
        self._compat.add(table)
        if checked and cached is not None:
            self._note_events(table)
        if table in NAME_IDS and table in self.raw_columns:
            self._complete_strings(table, catalog)

    def _complete_strings(self, table: str, catalog: str) -> None:
        """Give compat.StringIds a stand-in for each string id that `table` names but the export lacks (found once
        per version of the file, from the table as compat reads it). compat.StringIds itself is made when the ids
        are looked for or a query reads it: a warm command whose stored rows hold their names never attaches the
        export (loading the SQLite reader: about 4 ms and 6 MiB of a 0.16 s `nvtx`)."""

        def missing() -> dict:
            self._ensure_compat("StringIds", catalog)
            named = self._named_ids.pop(table, None)
            if named is not None:  # the rows' names, found by the scan that checked the rows
                return {"ids": bad_rows.missing_among(self.con, named, self._strings)}
            with progress.showing(f"checking the names of {table} in {self.path.name} (once)"):
                return {"ids": bad_rows.missing_strings(self.con, f'"{catalog}".compat."{table}"', table,
                                                        self._strings)}

        kind = f"missing-strings-{table}"
        if self._where(table):  # a rank's rows of a shared file: its own memo
            kind += "-" + hashlib.sha1(self._where(table).encode()).hexdigest()[:8]
        ids = set(source.cached_json(self.sqlite_path, kind, missing)["ids"])
        if ids - self._missing_strings:
            if (note := bad_rows.strings_note(table, len(ids))) and self.on_note is not None:
                self.on_note(note)
            self._missing_strings |= ids
            if "StringIds" in self._compat:  # made before these ids were known: made again with their stand-ins
                self._compat.discard("StringIds")
                self._ensure_compat("StringIds", catalog)

    def _note_events(self, table: str) -> dict[str, int]:
        """Note the rows of an event table that compat leaves out (raw_schema.CHECKED_EVENTS), counted once per
        version of the file; return their counts, {reason: rows}. Where it scans the export, the names the sound
        rows use are gathered in the same scan (_complete_strings, after it, checks them)."""
        def counts() -> dict:
            # The cached copy holds the sound rows only; where they fill the table's whole span of rowids (rowids
            # are distinct), no row was left out, which spares a scan of the export (2 s on 25 M API calls).
            kept = self._cache.rows(table)
            if kept is not None and kept == source.rowid_span(self.sqlite_path, table):
                return dict.fromkeys(bad_event_conditions(table, self.raw_columns[table]), 0)
            self._attach_raw()
            with progress.showing(f"checking the {table} rows of {self.path.name} (once)"):
                found = bad_rows.count_events(self.con, f'"{self._raw}"."{table}"', table, self.raw_columns[table],
                                              not self._where(table))  # a rank's rows: its names checked apart
            if bad_rows.NAMED_IDS in found:
                self._named_ids[table] = found.pop(bad_rows.NAMED_IDS)
            return found

        found = source.cached_json(self.sqlite_path, f"event-checks-{table}", counts)
        note = bad_rows.event_note(table, found)
        if note:
            self.on_note(note)
        return found

    def _whole_kernels(self) -> bool:
        """Put the whole cached kernel table (copied now) behind compat where its core copy was; False if the
        core copy was not what compat read."""
        if not self._cache.whole_kernels():
            return False
        self._compat.discard(KERNEL_TABLE)
        self._ensure_compat(KERNEL_TABLE)
        return True

    def _heal(self, error: Exception) -> bool:
        """After a query failed on the cache: True once what it read is whole again (then it can run again)."""
        if self._cache.core_gone():  # another process copied the whole kernel table and removed the core copy
            return self._whole_kernels()
        return self._cache.heal(error)

    def _note_repeated_ids(self) -> None:
        """The note for a StringIds that holds an id more than once (a damaged export), whose compat view and cached
        copy read each id once (raw_schema.compat_select): counted in the export once per version of the file."""
        def count() -> dict:
            self._attach_raw()
            return {"repeated": self.con.execute(
                f'SELECT count(*) - count(DISTINCT id) FROM "{self._raw}"."StringIds"').fetchone()[0]}

        repeated = source.cached_json(self.sqlite_path, "string-repeats-1", count)["repeated"]
        if repeated:
            self.on_note(f"StringIds holds {repeated:,} id(s) more than once (the export is damaged): each is read "
                         "once, with its smallest name")

    def _compat_select(self, raw: str, table: str, columns: dict[str, str], all_sound: bool = False) -> str:
        """The compat layer's SELECT of a raw table of the export (with _where's condition)."""
        select = compat_select(self.raw_columns, raw, table, columns, all_sound)
        if self._where(table) and table in self.raw_columns:
            select += f" WHERE {self._where(table)}"
        return select

    def _where(self, table: str) -> str | None:
        """A condition on the raw table's rows that this profile keeps (None: all; see profile_set.RankProfile).
        A profile with one keeps no decoded view in the cache: those hold every row."""
        return None

    def _valid_kernels(self, catalog: str, select: str) -> str:
        """The kernel table without the rows no duration can come from, counted once per version of the file."""
        self.con.execute(f'CREATE VIEW "{catalog}".compat._all_kernels AS {select}')
        bad = BadRows()
        if KERNEL_TABLE in self.raw_columns:
            def counts() -> dict:
                with progress.showing(f"checking the kernel rows of {self.path.name} (once)"):
                    if self._where(KERNEL_TABLE):  # a rank's rows: its names checked apart
                        return vars(bad_rows.count(self.con, f'"{catalog}".compat._all_kernels'))
                    bad, self._named_ids[KERNEL_TABLE] = bad_rows.count_named(
                        self.con, f'"{catalog}".compat._all_kernels')
                    return vars(bad)

            bad = BadRows(**source.cached_json(self.sqlite_path, "kernel-checks-2", counts))
        self._set_bad_rows(bad)
        return bad_rows.valid_select(f'"{catalog}".compat._all_kernels', bad)

    def _set_bad_rows(self, bad: BadRows) -> None:
        self._bad_rows = bad
        if bad.note() and self.on_note is not None:
            self.on_note(bad.note())

    @property
    def bad_kernel_rows(self) -> BadRows:
        """Kernel rows that every view and report leaves out (reads the kernel table once, if not yet read)."""
        if self._bad_rows is None:
            self._ensure_objects("SELECT 1 FROM compat.CUPTI_ACTIVITY_KIND_KERNEL")
        return self._bad_rows or BadRows()

    def prepare(self, query: str) -> None:
        """Make what `query` reads (for a query run on `con` directly, e.g. to stream it)."""
        try:
            try:
                self._ensure_objects(query)
            except duckdb.Error as e:  # a cache file was damaged: again once it is built anew
                if not self._heal(e):
                    raise
                self._ensure_objects(query)
        except duckdb.Error as e:
            raise self._error(e) from e
        except UnicodeDecodeError as e:
            raise self._not_utf8(e, False) from e

    def _ensure_objects(self, query: str) -> None:
        """Create the compat views, views and table macros the query reads, and what they read, the first time
        one is needed; the cache builds what they read that it lacks."""
        if self.alias != "main" or self._made_only:
            return
        names = sorted(schema_objects.wanted_by(query))
        plan: dict[str, None] = {}
        for name in names:
            self._plan(name, True, plan)
        lists = schema_objects.lists_catalog(query)
        tables = set(RAW_TABLES) if lists else set(cache.tables_named(query))
        # the kernel table's launch columns, named where no projection drops them: the whole table, not its core
        whole = lists or cache.reads_launch_columns(query)
        for name in plan:
            if not self._decodes(name):
                tables |= cache.tables_named(schema_objects.body(name))
                whole = whole or (name not in cache.PROJECTED and cache.reads_launch_columns(schema_objects.body(name)))
        if lists or _READS_RAW.search(query):
            self._attach_raw()
        decoded = [n for n in plan if self._decodes(n)]
        self._cache.prepare(sorted(tables - self._compat), decoded, build=self.build_cache and not lists,
                            whole_kernels=whole)
        if missing := {n for n in decoded if self._cache.body(n) is None}:
            # not stored (a build that failed, or one not made while listing the catalog): computed from what they
            # read, which the plan then holds, with the raw tables those read
            self._undecoded |= missing
            self._ensure_objects(query)
            return
        if whole and KERNEL_TABLE in self._compat:
            self._whole_kernels()
        for table in sorted(tables):
            self._ensure_compat(table)
        for name in names:
            self._ensure(name, named=True)

    def stores(self, name: str) -> bool:
        """Whether the view `name` is read from a table the columnar cache stored, in time order (a filter on its
        times then reads only the row groups it needs). Makes it first, as a query reading it would."""
        self.prepare(f"SELECT * FROM {name}")
        return self._decodes(name) and self._cache.body(name) is not None

    def hold(self, name: str) -> None:
        """Where the cache does not store the view `name` (a profile read directly: --no-cache, or under the cache's
        minimum size), compute it once into a table of this profile's database, which the view then reads, for a
        command that reads it several times: `--no-cache diagnose` joined every operation to its launch for the
        pass, gpu_starved and launch_bound each (3.41 -> 2.76 s at 1 M kernels, 36.1 -> 29.6 s at 10 M, the peak
        1.39 -> 1.55 GiB). Tables are in the database, not one connection's: beside() sees them."""
        if self.stores(name) or f"{name}{_HELD}" in self._created:
            return
        try:
            self.con.execute(f"CREATE TABLE memory.main.{name}{_HELD} AS SELECT * FROM memory.main.{name}")
            self.con.execute(f"CREATE OR REPLACE VIEW memory.main.{name} AS SELECT * FROM memory.main.{name}{_HELD}")
        except duckdb.Error as e:
            raise self._error(e) from e
        self._created.add(f"{name}{_HELD}")

    def _decodes(self, name: str) -> bool:
        """Whether the cache stores this view as a table (then what it reads need not be created)."""
        return self._cache.decodes(name) and name not in self._undecoded

    def _plan(self, name: str, named: bool, plan: dict[str, None]) -> None:
        """The objects _ensure(name) will create, in `plan` (the cache then builds what they read)."""
        if name in self._created or name in plan or (name in STANDINS and not named):
            return
        plan[name] = None
        if not self._decodes(name):
            for dependency in schema_objects.dependencies()[name]:
                self._plan(dependency, False, plan)

    def _ensure(self, name: str, named: bool) -> None:
        if name in self._created:
            return
        if name in STANDINS and not named:  # only read as a dependency: an empty stand-in until a query names it
            self._create_object(name, STANDINS[name], replace=True)
            return
        decoded = self._cache.body(name)  # the cache's table of a decoded view: it reads nothing else
        if decoded is not None and self._bad_rows is None and (bad := self._cache.bad_rows(name)) is not None:
            self._set_bad_rows(bad)
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

    # -- queries ------------------------------------------------------------------------------
    def sql(self, query: str, params: dict[str, Any] | None = None, stream: bool = False,
            own: bool = False) -> Result:
        """Run SQL over the normalized views (and `raw.<nsys table>`); return columns and rows.

        `stream`: the rows come as `Result.batches` of BATCH_ROWS, read while the result is written (long
        outputs never sit in Python whole); read them before the next query on this profile. `own`: the query is
        the user's (the `sql` command): a conversion or overflow is the query's error, not a damaged file's."""
        try:
            try:
                cur = self._execute(query, params)
            except duckdb.Error as e:  # a cache file was damaged: again once it is built anew
                if not self._heal(e):
                    raise
                cur = self._execute(query, params)
            if cur.description is None:
                return Result([], [])
            columns = [d[0] for d in cur.description]
            if stream:
                return Result(columns, [], batches=self._batches(cur, own))
            return Result(columns, cur.fetchall())
        except duckdb.Error as e:
            raise self._error(e, own) from e
        except UnicodeDecodeError as e:
            raise self._not_utf8(e, own) from e

    def _execute(self, query: str, params: dict[str, Any] | None):
        self._ensure_objects(query)
        with progress.showing(f"querying {self.path.name}"):
            try:
                return self.con.execute(query, params or {})
            except duckdb.Error as e:  # it read a launch column of a core kernel copy: again on the whole table
                if cache.NOT_CACHED not in str(e) or not self._whole_kernels():
                    raise
                return self.con.execute(query, params or {})

    def _batches(self, cur, own: bool = False):
        try:
            while batch := cur.fetchmany(BATCH_ROWS):
                yield batch
        except duckdb.Error as e:
            raise self._error(e, own) from e
        except UnicodeDecodeError as e:
            raise self._not_utf8(e, own) from e

    def _not_utf8(self, e: UnicodeDecodeError, own: bool):
        """DuckDB quotes a value it cannot convert in its message; bytes that are not UTF-8 there (a blob in a text
        column) make the message itself unreadable to Python."""
        known = bad_values.value_error(e, [self.sqlite_path], found_only=own)
        return known or QueryError("SQL error: a value is not UTF-8 text (DuckDB's message about it cannot be shown)")

    def _error(self, e: Exception, own: bool = False):
        """A damaged file shows up only when a query reads it: blame the file, not the query (but a value error of
        the user's own query is the query's: `own`)."""
        message = _first_line(e)
        if any(s in message for s in _DAMAGE):
            return ProfileError(f"{self.sqlite_path}: is corrupt ({message}); copy it again or re-export it")
        known = database.memory_error(e) or bad_values.value_error(e, [self.sqlite_path], found_only=own)
        if known is not None:  # out of memory, or a value no query can use (README: Bad input)
            return known
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
        """Your query, read-only as the `sql` command runs it (sql_guard: no COPY, ATTACH, INSTALL, ...), as a pandas
        DataFrame; a conversion or overflow in it is the query's error, not the file's."""
        from . import sql_guard

        sql_guard.check_read_only(query)
        return self.sql(query, params, own=True).to_pandas()

    def frame(self, query: str, params: dict[str, Any] | None = None):
        """The package's own query as a pandas DataFrame (no guard: `df` is the door for a user's)."""
        return self.sql(query, params).to_pandas()

    def run_file(self, folder: str, name: str, params: dict[str, Any] | None = None, stream: bool = False) -> Result:
        """Run one of the shipped queries in sql/<folder>/<name>.sql with `$name` parameters."""
        return self.sql(sql_files.inline_params(sql_files.read(folder, name).text, params or {}), stream=stream)

    def has_table(self, raw_table: str) -> bool:
        return raw_table in self.raw_columns

    @property
    def cached(self) -> bool:
        """Whether the raw tables are read from the columnar cache (docs/cache.md), not from the export itself."""
        return self._cache.pcache is not None

    def attach(self, path: str | Path, alias: str) -> Profile:
        """Open another profile on the same connection; its views live under `alias.` (e.g. `b.kernels`)."""
        check_alias(alias)
        if alias in {n for (n,) in self.con.execute("SELECT database_name FROM duckdb_databases()").fetchall()}:
            raise UsageError(f"the alias {alias!r} is taken on this connection (a profile attached as it, or a "
                             "name DuckDB keeps); choose another")
        # DuckDB's common-subplan optimizer takes scans of two attached SQLite files with the same tables
        # for the same scan (seen with DuckDB 1.5.5): every cross-profile query would read one file twice.
        self.con.execute("SET disabled_optimizers = 'common_subplan'")
        return type(self)(path, con=self.con, alias=alias)

    def beside(self) -> Profile | None:
        """This profile on a second connection to its database, for queries on another thread while this one runs
        its own. Everything those read must have been made here first (`prepare`): the second connection makes
        nothing (two connections making the same view would race). None where the profile reads tables registered
        on its own connection, which another one does not see (an arrowdir export). Close it when done."""
        if self.columnar or self.alias != "main":
            return None
        twin = copy.copy(self)
        twin.con = self.con.cursor()
        twin._made_only = True
        return twin

    def close(self) -> None:
        database.close(self.con)
        if not self._made_only:  # the cache folder's lease (a twin made by beside() shares it): eviction may go on
            self._cache.close()

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
        columns = {
            t: {row[1] for row in con.execute(f'PRAGMA table_info("{t}")')}
            for t in RAW_TABLES if t in present
        }
    except sqlite3.DatabaseError as e:
        raise ProfileError(f"{path}: is corrupt ({e}); copy it again or re-export it") from e
    finally:
        con.close()
    for table, present in columns.items():
        lacking = missing_required(table, present)
        if lacking is not None:
            raise ProfileError(f"{path}: table {table} has no column {lacking}, which nsys always writes: the export "
                               "was altered; export the report again (`nsys export --type sqlite`)")
    return columns


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
