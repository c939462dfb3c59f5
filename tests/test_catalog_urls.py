"""The catalog's URL and file handling: no credential is ever printed, a malformed URL is a usage error (2), another
database is refused naming the supported ones (1), a stored row that is not JSON is one line (1), nothing is left
beside a catalog file (no -wal/-shm, even a corrupt one), and a --db in a missing folder makes no folder."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .test_catalog import FORWARD, PASSWORD, TRAIN, _free_port, db, pg_server, runs  # noqa: F401 - fixtures

SUPPORTED = ("SQLite", "PostgreSQL")


def _invoke(*args, env: dict | None = None):
    return CliRunner().invoke(cli, list(map(str, args)), env=env)


def _one_line(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output, result.output
    return result.output


# -- credentials ---------------------------------------------------------------------------------------------

def _credential_urls(port: int) -> list[str]:
    """Every way a password reaches the driver, each failing on the server (a database named like the password,
    so that the server's own error text quotes it) or before it (a closed port)."""
    here = f"127.0.0.1:{port}"
    return [
        f"postgresql://tester:{PASSWORD}@{here}/{PASSWORD}",  # user:password@
        f"postgresql://tester@{here}/{PASSWORD}?password={PASSWORD}",  # in the query
        f"postgresql://{here}/{PASSWORD}?user=tester&password={PASSWORD}",
        f"postgresql://{here}/postgres?user=tester&password={PASSWORD}x",  # refused: authentication failed
        f"postgresql://tester@{here}/db?password={PASSWORD}&sslpassword={PASSWORD}y",
        f"postgresql://tester@127.0.0.1:{_free_port()}/db?password={PASSWORD}",  # nothing listens there
        f"postgres://tester:{PASSWORD}@127.0.0.1:{_free_port()}/db",
    ]


@pytest.mark.parametrize("command", [["list"], ["show", "1"], ["trend"]])
def test_no_credential_is_printed_whatever_its_form(pg_server, command):
    for url in _credential_urls(pg_server):
        out = _one_line(_invoke("runs", *command, "--db", url), 1)
        assert PASSWORD not in out and "***" in out, (url, out)


def test_nor_in_the_traceback_of_debug(pg_server):
    for url in _credential_urls(pg_server)[:4]:
        result = subprocess.run([sys.executable, "-m", "nsys_analytics", "--debug", "runs", "list", "--db", url],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 1 and "***" in result.stderr
        assert PASSWORD not in result.stderr + result.stdout, result.stderr


def test_the_catalog_process_prints_no_credential_either(pg_server):
    """`runs add` in a process of its own (the forked catalog process opens the catalog)."""
    for url in _credential_urls(pg_server)[:3]:
        result = subprocess.run([sys.executable, "-m", "nsys_analytics", "runs", "add", FORWARD, "--db", url],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
        assert PASSWORD not in result.stderr + result.stdout and "***" in result.stderr


def test_driver_text_with_a_credential_is_masked():
    """What a driver may print: a conninfo string, quoted or not, a URL it was given."""
    from nsys_analytics.capabilities.catalog.connect import resolve_url, scrub

    url = resolve_url(f"postgresql://ci@h/db?password={PASSWORD}")
    for text in (f"invalid dsn: host=h password={PASSWORD} user=ci", f"password='{PASSWORD} x' dbname=db",
                 f"postgresql://ci:{PASSWORD}@h/db", f"database {PASSWORD!r} does not exist"):
        assert PASSWORD not in scrub(text, url) and "***" in scrub(text, url), text
    url = resolve_url("postgresql://ci:p%40ss%2Fw%20rd@h/db")  # the password p@ss/w rd
    for form in ("p@ss/w rd", "p%40ss%2Fw%20rd", "p%40ss%2Fw+rd"):
        assert scrub(f"role {form} failed", url) == "role *** failed"
    assert scrub("password authentication failed for user ci", url) == "password authentication failed for user ci"


# -- URLs that are not a catalog -----------------------------------------------------------------------------

@pytest.mark.parametrize("url", [
    f"postgresql://tester:{PASSWORD}@127.0.0.1:notaport/db",
    f"postgresql://tester:{PASSWORD}@[::1/db",  # an unclosed [
    f"postgresql://tester@[::1:5432/db?password={PASSWORD}",
    f"postgresql://tester:{PASSWORD}@127.0.0.1:99999/db", f"postgresql://tester:{PASSWORD}@127.0.0.1:-1/db",
    f"postgresql://tester:{PASSWORD}@127.0.0.1:/db",  # an empty port
    "://nothing",
])
def test_a_malformed_url_is_a_usage_error(url):
    out = _one_line(_invoke("runs", "list", "--db", url), 2)
    assert "not a valid database URL" in out and all(s in out for s in SUPPORTED) and PASSWORD not in out


@pytest.mark.parametrize("url", [
    f"mysql://tester:{PASSWORD}@127.0.0.1/db", f"postgresql+asyncpg://tester:{PASSWORD}@127.0.0.1/db",
    f"postgresql+psycopg2://tester@127.0.0.1/db?password={PASSWORD}", "oracle://u@h/db", "duckdb:///x.db",
])
def test_another_database_is_refused_naming_the_supported_ones(url, tmp_path):
    for command in (["list"], ["add", FORWARD]):
        out = _one_line(_invoke("runs", *command, "--db", url), 1)
        assert "is not supported" in out and all(s in out for s in SUPPORTED) and PASSWORD not in out
    assert list(tmp_path.iterdir()) == []


# -- stored rows that nsys-analytics did not write -------------------------------------------------------------

@pytest.mark.parametrize("stored", ["not json", "[1, 2]", '{"a": 1}', "null", '[["x"], [1], false]',
                                    "[[1, 2], [1], false]", "[[1], [-1], false]", '[[1], [1], "yes"]'])
def test_runs_diff_of_a_stored_row_that_is_not_a_distribution(db, stored):
    from sqlalchemy import update

    from nsys_analytics.capabilities.catalog.connect import Catalog
    from nsys_analytics.capabilities.catalog.schema import kernel_dists, range_dists

    runs("add", TRAIN, FORWARD, db=db)
    runs("diff", "1", "2", db=db)
    store = Catalog(db)
    table = range_dists if stored.startswith("[[1], [1]") else kernel_dists
    store.write(lambda c: c.execute(update(table).where(table.c.run_id == 2, table.c.seq == 0).values(dist=stored)))
    store.close()
    for command in (["diff", "1", "2"], ["diff", "2", "1", "--format", "json"]):
        out = runs(*command, db=db, code=1)
        assert out.count("\n") == 1 and "run 2, rank 0: a stored distribution is not" in out, out
    assert runs("diff", "1", "1", db=db)  # the other run reads as before


def test_runs_diff_of_a_stored_figure_that_is_text(tmp_path):
    """SQLite keeps text in an integer column: one line, exit 1, as for a distribution."""
    db = tmp_path / "runs.db"
    runs("add", TRAIN, FORWARD, db=str(db))
    con = sqlite3.connect(db)
    con.execute("UPDATE kernel_stats SET total_ns = 'lots' WHERE run_id = 2 AND seq = 1")
    con.commit()
    con.close()
    out = runs("diff", "1", "2", db=str(db), code=1)
    assert out.count("\n") == 1 and "run 2, rank 0: a stored figure is not a number" in out


# -- SQLite files ----------------------------------------------------------------------------------------------

def _damaged(good: Path, page: int, out: Path) -> Path:
    data = bytearray(good.read_bytes())
    start = page * 4096 + (100 if page == 0 else 0)
    for i in range(start, min(len(data), (page + 1) * 4096), 7):
        data[i] ^= 0x5A
    out.write_bytes(bytes(data))
    return out


def test_no_wal_or_shm_is_left_beside_a_catalog_sound_or_corrupt(tmp_path):
    """Every command closes the catalog: SQLite removes its -wal and -shm with the last connection. Damaged pages
    (each of the first ones, then every third) give either the answer or one line, exit 1."""
    good = tmp_path / "good" / "runs.db"
    good.parent.mkdir()
    runs("add", FORWARD, TRAIN, db=str(good))
    assert sorted(p.name for p in good.parent.iterdir()) == ["runs.db"]
    commands = (["list"], ["show", "1"], ["diff", "1", "2"], ["trend"], ["add", FORWARD])
    for command in commands:
        runs(*command, db=str(good))
        assert sorted(p.name for p in good.parent.iterdir()) == ["runs.db"], command
    folder = tmp_path / "bad"
    folder.mkdir()
    pages = good.stat().st_size // 4096
    failed = 0
    for page in [*range(6), *range(6, pages, 3)]:
        bad = _damaged(good, page, folder / "runs.db")
        for command in commands:
            result = _invoke("runs", *command, "--db", bad)
            assert result.exit_code in (0, 1), (page, command, result.output)
            failed += result.exit_code == 1
            if result.exit_code:
                assert result.output.count("\n") == 1 and "catalog sqlite:///" in result.output, result.output
            assert sorted(p.name for p in folder.iterdir()) == ["runs.db"], (page, command)
    assert failed > 10  # the damage was seen


def test_a_catalog_in_a_missing_folder_makes_no_folder(tmp_path):
    for db in (tmp_path / "no" / "such" / "runs.db", f"sqlite:///{tmp_path}/typo/runs.db"):
        out = runs("add", FORWARD, db=str(db), code=1)
        missing = tmp_path / ("no/such" if isinstance(db, Path) else "typo")
        assert out.count("\n") == 1 and f"the folder {missing} does not exist" in out, out
        out = runs("list", db=str(db), code=1)
        assert "no run catalog there yet" in out
    assert list(tmp_path.iterdir()) == []


def test_the_default_catalog_makes_its_folder(tmp_path):
    """No --db and no $NSYS_ANALYTICS_DB: the default file in the user's data folder, made on first use."""
    env = {"NSYS_ANALYTICS_DB": None, "XDG_DATA_HOME": str(tmp_path / "data")}
    assert _invoke("runs", "add", FORWARD, env=env).output.startswith("added run 1")
    assert (tmp_path / "data" / "nsys-analytics" / "runs.db").is_file()
    assert sorted(os.listdir(tmp_path / "data" / "nsys-analytics")) == ["runs.db"]
    con = sqlite3.connect(tmp_path / "data" / "nsys-analytics" / "runs.db")
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    con.close()


def test_a_password_in_the_query_opens_the_catalog(pg_server):
    """`?password=` reaches the server (scram-sha-256 over TCP), while the engine's own URL holds no credential."""
    import psycopg

    from nsys_analytics.capabilities.catalog.connect import Catalog

    with psycopg.connect(f"host=127.0.0.1 port={pg_server} user=tester password={PASSWORD} dbname=postgres",
                         autocommit=True) as con:
        con.execute("CREATE DATABASE query_password")
    url = f"postgresql://tester@127.0.0.1:{pg_server}/query_password?password={PASSWORD}&application_name=t"
    assert runs("add", FORWARD, db=url).startswith("added run 1")
    assert "gpt_forward" in runs("list", db=url)
    store = Catalog(url, create=False)
    try:
        assert PASSWORD not in repr(store.engine) + str(store.engine.url) + store.name
    finally:
        store.close()
    wrong = url.replace(f"password={PASSWORD}", "password=wrong-one")
    out = runs("list", db=wrong, code=1)
    assert "password authentication failed" in out and "wrong-one" not in out


def test_a_short_password_is_masked_where_it_stands_not_inside_words():
    """Password "p": the driver's "port 1 failed" read "***ort 1 failed". A longer one is masked everywhere, a
    database named like it included."""
    from nsys_analytics.capabilities.catalog.connect import resolve_url, scrub

    short = resolve_url("postgresql://u:p@127.0.0.1:1/db")
    assert scrub('at "127.0.0.1", port 1 failed; password p rejected', short) == \
        'at "127.0.0.1", port 1 failed; password *** rejected'
    long = resolve_url("postgresql://u:secretpw@127.0.0.1:1/mysecretpwdb")
    assert "secretpw" not in scrub("database mysecretpwdb: password secretpw rejected", long)
