"""`sql` is sealed (issue #30, item 1): what may run is decided from DuckDB's parse tree, so a refused function is
refused whatever its schema prefix, quoting or comments, and the engine itself is locked.

Every statement of the corpus is refused with exit code 2 and one line, and nothing is created or changed under a
temporary root that holds the working directory, another folder the statements aim at, the cache folder and HOME
(where DuckDB keeps extensions and persistent secrets)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES

GOOD = PROFILES / "no_nvtx.sqlite"

# {E}: a folder elsewhere under the same root, holding existing.json, other.sqlite, other.duckdb and `dump` (what
# EXPORT DATABASE writes); the working directory holds P.sqlite and data.csv.
HOSTILE = [
    # profiling and logging into files, spelled every way
    "SELECT * FROM main.enable_profiling(format='json', save_location='{E}/existing.json')",
    "SELECT * FROM system.main.enable_profiling(format='json', save_location='{E}/existing.json')",
    "SELECT * FROM enable_profiling/**/(format='json', save_location='{E}/existing.json')",
    "SELECT * FROM \"enable_profiling\"(format := 'json', save_location := '{E}/new.json')",
    "select * from ENABLE_PROFILING(format='json', save_location='{E}/new.json')",
    "SELECT * FROM main /* a */ . /* b */ enable_profiling(format='json', save_location='{E}/new.json')",
    "SELECT * FROM \"system\".\"main\".\"enable_profiling\"(format='json', save_location='{E}/new.json')",
    "SELECT * FROM main.enable_logging(storage='file', storage_path='{E}/logs')",
    "SELECT * FROM system.main.enable_logging(storage='file', storage_path='{E}/logs')",
    "SELECT * FROM enable_logging/**/()",
    "SELECT * FROM enable_logging -- note\n (storage='file', storage_path='logs')",
    "SELECT * FROM \"main\".\"enable_logging\"(storage='file', storage_path='logs')",
    "SELECT * FROM main.disable_logging()",
    "SELECT * FROM main.truncate_duckdb_logs()",
    "SELECT * FROM main.disable_profiling()",
    "SELECT write_log('x')",
    # SQL run from a string
    "SELECT * FROM main.query('SELECT 42')",
    "SELECT * FROM system.main.query('SELECT 42')",
    "SELECT * FROM query/**/('SELECT 42')",
    "SELECT * FROM \"query\"('SELECT 42')",
    "SELECT * FROM main.query_table('kernels')",
    "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 42'))",
    # checkpoints and attaching through table functions
    "SELECT * FROM main.checkpoint()",
    "SELECT * FROM main.force_checkpoint('raw')",
    "SELECT * FROM system.main.force_checkpoint()",
    "SELECT * FROM main.sqlite_attach('{E}/other.sqlite')",
    "SELECT * FROM sqlite_attach('{E}/other.sqlite', overwrite=true)",
    "SELECT * FROM sqlite_query('{E}/other.sqlite', 'DELETE FROM t RETURNING *')",
    "SELECT * FROM sqlite_scan('{E}/other.sqlite', 't')",
    # a read that opens a database (a DuckDB file is checkpointed when opened), or keeps rejected rows as tables
    "SELECT * FROM read_duckdb('{E}/other.duckdb')",
    "FROM '{E}/other.duckdb'",
    "SELECT * FROM read_csv('data.csv', store_rejects = true)",
    "SELECT * FROM read_csv('data.csv', rejects_table = 'r')",
    # hidden inside a larger SELECT
    "WITH q AS (SELECT * FROM main.query('SELECT 1')) SELECT * FROM q",
    "SELECT (SELECT count(*) FROM main.checkpoint()) AS n",
    "SELECT * FROM kernels WHERE EXISTS (SELECT * FROM system.main.enable_logging(storage='file', storage_path='l'))",
    "SELECT * FROM range(1) r, LATERAL (SELECT * FROM main.query('SELECT 1'))",
    "SELECT 1 AS x UNION ALL SELECT * FROM main.force_checkpoint()",
    "SELECT 1; SELECT * FROM main.enable_profiling(format='json', save_location='{E}/existing.json')",
    "DESCRIBE SELECT * FROM main.query('SELECT 1')",
    "SUMMARIZE SELECT * FROM main.query('SELECT 1')",
    "PIVOT (SELECT * FROM main.query('SELECT 1 AS a, ''x'' AS b')) ON b IN ('x') USING sum(a)",
    "PIVOT kernels ON stream USING count(*)",
    "EXPLAIN ANALYZE SELECT * FROM main.enable_profiling(format='json', save_location='{E}/existing.json')",
    "EXPLAIN ANALYZE SELECT * FROM system.main.query('SELECT 1')",
    "EXPLAIN (FORMAT json) SELECT * FROM main.query('SELECT 1')",
    "EXPLAIN /* c */ ANALYZE SELECT * FROM enable_logging(storage='file', storage_path='logs')",
    # statements that write, attach, install, load or change a setting
    "ATTACH '{E}/new.db' AS n",
    "ATTACH 'P.sqlite' AS w (TYPE sqlite)",
    "ATTACH OR REPLACE '{E}/other.sqlite' AS o (TYPE sqlite)",
    "DETACH raw",
    "COPY (SELECT 1 AS x) TO '{E}/out.csv'",
    "COPY (SELECT 1 AS x) TO 'out.parquet' (FORMAT parquet)",
    "EXPORT DATABASE '{E}/dump'",
    "IMPORT DATABASE '{E}/dump'",
    "INSTALL httpfs",
    "FORCE INSTALL httpfs",
    "LOAD httpfs",
    "LOAD '{E}/evil.duckdb_extension'",
    "UPDATE EXTENSIONS",
    "SET enable_profiling = 'json'",
    "SET profiling_output = '{E}/profile.json'",
    "SET logging_storage = 'file'",
    "SET enable_external_access = true",
    "SET lock_configuration = false",
    "SET GLOBAL threads = 1",
    "SET VARIABLE x = 1",
    "RESET ALL",
    "PRAGMA enable_profiling",
    "PRAGMA profiling_output = '{E}/profile.json'",
    "PRAGMA force_checkpoint",
    "PRAGMA enable_checkpoint_on_shutdown",
    "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')",
    "CREATE PERSISTENT SECRET p (TYPE s3, KEY_ID 'a', SECRET 'b')",
    "CHECKPOINT",
    "FORCE CHECKPOINT raw",
    "VACUUM",
    "CALL enable_logging(storage='file', storage_path='logs')",
    "CALL main.checkpoint()",
    "CREATE TABLE t AS SELECT 1",
    "CREATE OR REPLACE VIEW kernels AS SELECT 1",
    "CREATE MACRO m(x) AS x",
    "CREATE TYPE e AS ENUM ('a')",
    "INSERT INTO raw.StringIds VALUES (999999, 'x')",
    "DROP VIEW kernels",
    "USE raw",
    "BEGIN TRANSACTION",
    "PREPARE p AS SELECT 1",
]


@pytest.fixture
def root(tmp_path, monkeypatch):
    """The temporary root: work/ as the working directory, elsewhere/, cache/ and home/."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    for folder in (work, elsewhere, tmp_path / "cache", tmp_path / "home", elsewhere / "dump"):
        folder.mkdir()
    shutil.copy(GOOD, work / "P.sqlite")
    (work / "data.csv").write_text("a,b\n1,2\nx\n")
    (elsewhere / "existing.json").write_text('{"kept": true}\n')
    (elsewhere / "dump" / "schema.sql").write_text("CREATE TABLE evil (x INTEGER);\n")  # as EXPORT DATABASE writes
    (elsewhere / "dump" / "load.sql").write_text(f"COPY evil FROM '{work / 'data.csv'}';\n")
    with sqlite3.connect(elsewhere / "other.sqlite") as con:
        con.execute("CREATE TABLE t (x INTEGER)")
        con.execute("INSERT INTO t VALUES (1)")
    import duckdb

    duckdb.connect(str(elsewhere / "other.duckdb")).close()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
    return tmp_path


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file and folder under `root`: its kind, size, modification time and (files) content digest."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
            found[str(path.relative_to(root))] = (path.is_dir(), st.st_size, st.st_mtime_ns, digest)
    return found


def test_the_corpus_is_large_and_distinct():
    assert len(HOSTILE) >= 60 and len(set(HOSTILE)) == len(HOSTILE)


@pytest.mark.parametrize("statement", HOSTILE)
def test_hostile_statement_is_refused_and_touches_nothing(root, statement):
    query = statement.replace("{E}", str(root / "elsewhere"))
    before = snapshot(root)
    result = CliRunner().invoke(cli, ["sql", str(root / "work" / "P.sqlite"), query])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, result.output
    assert "refused" in lines[0] or "SQL error" in lines[0], result.output
    assert "? is refused" not in lines[0]
    assert snapshot(root) == before


# Functions that take raw memory addresses: checked by the guard alone (run, they would crash the process).
POINTERS = ["SELECT * FROM arrow_scan(0, 0, 0)", "SELECT * FROM main.pandas_scan(0)",
            "SELECT * FROM arrow_scan_dumb(0, 0, 0)", "SELECT * FROM python_map_function(0, 0, 0)"]


@pytest.mark.parametrize("statement", POINTERS)
def test_functions_on_memory_addresses_are_refused(statement):
    from nsys_analytics.data import sql_guard
    from nsys_analytics.core.errors import QueryError

    with pytest.raises(QueryError, match=r"_(scan|scan_dumb|function)\(\) is refused"):
        sql_guard.check_read_only(statement)


# Run on the locked connection directly, past the guard: the engine refuses them by itself.
PAST_THE_GUARD = ["COPY (SELECT 1 AS x) TO '{E}/out.csv'", "ATTACH '{E}/new.duckdb' AS n",
                  "EXPORT DATABASE '{E}/dump2'", "INSTALL httpfs", "LOAD httpfs",
                  "CREATE PERSISTENT SECRET p (TYPE s3, KEY_ID 'a', SECRET 'b')",
                  "SELECT * FROM read_csv('{W}/data.csv')", "FROM '{E}/other.duckdb'",
                  "SET enable_external_access = true", "SET lock_configuration = false",
                  "SET profiling_output = '{E}/profile.json'", "SET python_enable_replacements = true"]


def test_the_engine_refuses_what_the_guard_would_let_by(root):
    import duckdb

    import nsys_analytics
    from nsys_analytics.data import sql_guard
    from nsys_analytics.data.cache.folder import cache_dir

    with nsys_analytics.open(root / "work" / "P.sqlite") as p:
        p.prepare("SELECT * FROM kernels")
        sql_guard.lock(p.con, [p.sqlite_path], [cache_dir()])
        before = snapshot(root)
        for statement in PAST_THE_GUARD:
            with pytest.raises(duckdb.Error):
                p.con.execute(statement.replace("{E}", str(root / "elsewhere")).replace("{W}", str(root / "work")))
        assert snapshot(root) == before
        # the profile is still read, its export too (attached on the first `raw.` query, after the lock)
        with sqlite3.connect(GOOD) as con:
            (strings,) = con.execute("SELECT count(*) FROM StringIds").fetchone()
            (kernels,) = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
        assert p.sql("SELECT count(*) FROM raw.StringIds").rows == [(strings,)]
        assert p.sql("SELECT count(*) FROM kernels").rows == [(kernels,)]


def run_sql(root: Path, *args: str):
    return CliRunner().invoke(cli, ["sql", str(root / "work" / "P.sqlite"), *args])


def one_line_error(result) -> str:
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


@pytest.mark.parametrize("query", [";;;", " ; -- nothing\n;", "/* only a comment */ ;"])
def test_a_query_of_no_statement_is_a_usage_error(root, query):
    assert "no statement" in one_line_error(run_sql(root, query))


def test_an_alias_given_twice_is_a_usage_error(root):
    p = str(root / "work" / "P.sqlite")
    assert "given twice" in one_line_error(run_sql(root, "-a", f"new={p}", "-a", f"new={p}", "SELECT 1"))


def test_pragma_table_info_of_a_view(root):
    """Documented: the view's columns, the same as a query of the view returns."""
    info = run_sql(root, "PRAGMA table_info('kernels')", "--format", "csv")
    assert info.exit_code == 0, info.output
    names = [line.split(",")[1] for line in info.output.splitlines()[1:]]
    header = run_sql(root, "SELECT * FROM kernels LIMIT 0", "--format", "csv")
    assert names == header.output.strip().split(",") and "duration_ns" in names


def test_timestamps_with_a_time_zone(root):
    from datetime import datetime, timezone

    result = run_sql(root, "SELECT TIMESTAMPTZ '2024-05-01 12:34:56+00' AS t, "
                           "now() > TIMESTAMPTZ '2024-01-01 00:00:00+00' AS later", "--format", "csv")
    assert result.exit_code == 0, result.output
    t, later = result.output.splitlines()[1].split(",")
    assert datetime.fromisoformat(t) == datetime(2024, 5, 1, 12, 34, 56, tzinfo=timezone.utc) and later == "True"


def test_pivot_with_its_values_runs_and_without_them_is_named(root):
    with sqlite3.connect(GOOD) as con:
        streams = dict(con.execute("SELECT streamId, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1"))
    stream = min(streams)
    result = run_sql(root, f"PIVOT (SELECT stream FROM kernels) ON stream IN ({stream}) USING count(*)",
                     "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [str(stream), str(streams[stream])]
    refused = one_line_error(run_sql(root, "PIVOT kernels ON stream USING count(*)"))
    assert "PIVOT without an IN list is refused" in refused


def test_the_files_a_query_names_are_read_and_no_others(root):
    work = root / "work"
    (work / "more.csv").write_text("a,b\n3,4\n")
    query = ("SELECT sum(a) AS s FROM (FROM read_csv(['data.csv', 'more.csv'], ignore_errors = true) "
             "UNION ALL FROM 'more.csv' UNION ALL FROM read_csv('m*.csv'))")
    result = run_sql(root, query, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output == "s\n10\n"  # (1 + 3) + 3 + 3: data.csv's short line is skipped
    computed = one_line_error(run_sql(root, "SELECT * FROM read_csv('more' || '.csv')"))
    assert "Permission Error" in computed and "names as text" in computed


def test_the_projects_own_table_macros_can_be_called():
    train = PROFILES / "gpt_train.sqlite"
    query = "SELECT count(*) AS n FROM kernels_in_range('step_0', 'thread')"
    result = CliRunner().invoke(cli, ["sql", str(train), query, "--format", "csv"])
    assert result.exit_code == 0, result.output
    with sqlite3.connect(train) as con:
        (kernels,) = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    assert 0 < int(result.output.splitlines()[1]) < kernels


def test_a_query_that_is_not_utf8_is_a_usage_error(root):
    assert "not UTF-8" in one_line_error(run_sql(root, "SELECT '\udcff' AS x"))  # a stray byte on the command line
    (root / "q.sql").write_bytes(b"SELECT 1 AS x -- \xff\n")
    assert "not UTF-8" in one_line_error(run_sql(root, "-f", str(root / "q.sql")))


def test_a_named_file_that_is_missing_is_said_so(root):
    """Not a permission error: the lock lets DuckDB look where the query pointed."""
    for query in ("SELECT * FROM read_csv('missing.csv')", "SELECT * FROM read_parquet('missing.parquet')"):
        message = one_line_error(run_sql(root, query))
        assert "No files found" in message and "Permission" not in message


def test_a_named_folder_is_read(root):
    (root / "work" / "runs").mkdir()
    (root / "work" / "runs" / "a.csv").write_text("x\n5\n")
    (root / "work" / "runs" / "b.csv").write_text("x\n7\n")
    result = run_sql(root, "SELECT sum(x) AS s FROM read_csv('runs')", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output == "s\n12\n"
