"""`sql` runs read-only statements only (issue #12, item 3): no writable attach, no COPY/EXPORT, no extension install
or load, no settings; the configuration is locked. Reading the user's own CSV/Parquet stays allowed."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES, ROOT

GOOD = PROFILES / "no_nvtx.sqlite"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A folder with a copy of a profile, as the working directory (where a relative COPY would write)."""
    shutil.copy(GOOD, tmp_path / "P.sqlite")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def state(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "" for p in folder.rglob("*")}


def run_sql(folder: Path, query: str, *extra: str):
    return CliRunner().invoke(cli, ["sql", str(folder / "P.sqlite"), query, *extra])


REFUSED = {
    "attach and create": "ATTACH 'P.sqlite' AS w (TYPE sqlite); CREATE TABLE w.evil AS SELECT 42",
    "attach": "ATTACH 'other.db' AS o",
    "detach": "DETACH raw",
    "install": "INSTALL httpfs",
    "load": "LOAD httpfs",
    "copy to": "COPY (SELECT 1 AS x) TO 'out.csv'",
    "copy to after a select": "SELECT 1; COPY (SELECT 1 AS x) TO 'out.csv'",
    "export database": "EXPORT DATABASE 'dump'",
    "create table": "CREATE TABLE t AS SELECT 1",
    "create temp view": "CREATE TEMP VIEW v AS SELECT 1",
    "create macro": "CREATE MACRO m(x) AS x + 1",
    "insert": "INSERT INTO raw.StringIds VALUES (999999, 'x')",
    "update": "UPDATE raw.StringIds SET value = 'x'",
    "delete": "DELETE FROM raw.StringIds",
    "drop": "DROP VIEW kernels",
    "set": "SET threads = 1",
    "set lock off": "SET lock_configuration = false",
    "reset": "RESET threads",
    "pragma setting": "PRAGMA enable_progress_bar",
    "call": "CALL checkpoint()",
    "checkpoint": "CHECKPOINT",
    "logging to a file": "SELECT * FROM enable_logging(storage = 'file', storage_path = 'log')",
    "profiling to a file": "SELECT * FROM enable_profiling()",
    "query() around a refused function": "SELECT * FROM query('SELECT * FROM enable_' || 'logging()')",
    "prepare": "PREPARE p AS SELECT 1",
    "transaction": "BEGIN TRANSACTION",
    "sqlite_attach": "SELECT * FROM sqlite_attach('P.sqlite')",
    "explain analyze of a side effect": "EXPLAIN ANALYZE SELECT * FROM enable_logging()",
    "quoted function name": 'SELECT * FROM "enable_logging"()',
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_statement_with_side_effects_is_refused(folder, name):
    before = state(folder)
    result = run_sql(folder, REFUSED[name])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "read-only" in lines[0], result.output
    assert state(folder) == before


ALLOWED = {
    "select": ("SELECT count(*) AS n FROM kernels", "n"),
    "with": ("WITH k AS (SELECT * FROM kernels) SELECT count(*) AS n FROM k", "n"),
    "from first": ("FROM kernels SELECT count(*) AS n", "n"),
    "describe": ("DESCRIBE kernels", "column_name"),
    "summarize": ("SUMMARIZE SELECT duration_ns FROM kernels", "column_name"),
    "show tables": ("SHOW TABLES", "name"),
    "explain": ("EXPLAIN SELECT * FROM kernels", "explain_key"),
    "pragma table_info": ("PRAGMA table_info('raw.StringIds')", "cid"),
    "raw table": ("SELECT count(*) AS n FROM raw.StringIds", "n"),
    "one statement and its semicolon": ("SELECT 1 AS a;", "a"),
    "a string that names a refused word": ("SELECT 'COPY, ATTACH and INSTALL' AS words", "words"),
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_read_only_statements_run(folder, name):
    query, column = ALLOWED[name]
    before = state(folder)
    result = run_sql(folder, query, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].split(",")[0] == column
    assert state(folder) == before


def test_several_statements_are_refused_after_each_is_checked(folder):
    """DuckDB runs every statement and returns the last one's rows: two SELECTs would show the second alone. One line,
    exit 2; a refused statement among them is named as such."""
    result = run_sql(folder, "SELECT 1 AS a; SELECT 2 AS b")
    assert result.exit_code == 2 and result.output == (
        "Error: the query has 2 statements; give one (its rows are the answer), e.g. with WITH ... SELECT or "
        "UNION ALL\n"), result.output
    assert "DROP is refused" in run_sql(folder, "SELECT 1; DROP TABLE kernels").output
    empty = run_sql(folder, "")
    assert empty.exit_code == 2 and empty.output == "Error: the query is empty\n", empty.output


@pytest.mark.parametrize("query", ["SELECT " + "abs(" * 600 + "1" + ")" * 600,
                                   "SELECT " + "[" * 600 + "1" + "]" * 600])
def test_a_query_nested_too_deeply_to_check_is_a_usage_error(folder, query):
    """The check reads DuckDB's tree recursively; 600 nested calls or lists ran out of Python's stack (an internal
    error, exit 3). One line, exit 2."""
    result = run_sql(folder, query)
    assert result.exit_code == 2 and result.output.startswith("Error: the query nests too deeply"), result.output
    assert result.output.count("\n") == 1


def test_copy_from_database_is_named_when_refused(folder):
    result = run_sql(folder, "COPY FROM DATABASE raw TO memory")
    assert result.exit_code == 2 and "COPY FROM DATABASE is refused" in result.output, result.output


def test_users_own_csv_and_parquet_can_be_read(folder):
    (folder / "timer.csv").write_text("step,seconds\n0,0.5\n1,0.25\n")
    result = run_sql(folder, "SELECT sum(seconds * 100)::INT AS s FROM read_csv('timer.csv')", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output == "s\n75\n"
    import duckdb

    duckdb.connect().execute(f"COPY (SELECT 7 AS x) TO '{folder / 'steps.parquet'}'")
    result = run_sql(folder, "SELECT x FROM read_parquet('steps.parquet')", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output == "x\n7\n"


def test_attached_profiles_are_read_only(folder):
    shutil.copy(GOOD, folder / "B.sqlite")
    before = state(folder)
    result = CliRunner().invoke(cli, ["sql", str(folder / "P.sqlite"), "-a", f"b={folder / 'B.sqlite'}",
                                      "SELECT * FROM sqlite_query('b_raw', 'DELETE FROM StringIds RETURNING *')"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert state(folder) == before


def test_configuration_is_locked_for_queries():
    import nsys_analytics
    from nsys_analytics.data import sql_guard

    with nsys_analytics.open(GOOD) as p:
        sql_guard.lock(p.con)
        assert p.sql("SELECT current_setting('lock_configuration') AS locked").rows == [(True,)]
        assert p.sql("SELECT current_setting('autoinstall_known_extensions') AS a").rows == [(False,)]
        assert p.sql("SELECT current_setting('allow_community_extensions') AS a").rows == [(False,)]


# Another thread's queries on DuckDB's default connection, and a check in the meantime (in its own process: a check
# that waits there hangs the whole process, GIL included).
_BESIDE_THEIR_QUERIES = """
import threading, duckdb
from nsys_analytics.data import sql_guard
theirs, stop = duckdb.default_connection(), threading.Event()
def their_queries():
    while not stop.is_set():
        try:
            theirs.execute("SELECT * FROM no_such_table")
        except duckdb.CatalogException:
            pass
busy = threading.Thread(target=their_queries, daemon=True)
busy.start()
for _ in range(20):
    assert sql_guard.check_read_only("EXPLAIN SELECT 2;") == sql_guard.Reads()
stop.set()
busy.join()
print("checked")
"""


def test_the_check_does_not_use_duckdbs_default_connection():
    """A program that embeds the package may be using DuckDB's module-wide default connection from another thread;
    checking a query (EXPLAIN included) does not touch it. It did: the statements were split on that connection, and
    the process then hung in each of 4 tries of this test."""
    try:
        done = subprocess.run([sys.executable, "-c", _BESIDE_THEIR_QUERIES], capture_output=True, text=True,
                              timeout=60, cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail("the check waited for queries on DuckDB's default connection")
    assert done.returncode == 0 and done.stdout.split() == ["checked"], done.stderr
