"""Kernel rows no duration can come from (issue #12, item 7): without an end, ending before they start, or repeating
another row exactly. The normalized layer leaves them out of every report and says how many, like nsys' SKIPPED.

The expected answers are the reports of the same profile with those rows deleted, which the oracle tests hold equal
to `nsys stats`. Checked by hand against nsys 2022.4: our `kernels --by-launch-config` of the doctored copy equals
its `gpukernsum` of the clean copy, all 73 rows; its `gpukernsum` of the doctored copy shows a minimum of -1000 ns
and the repeated kernel twice (README, "Bad input")."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli

from .conftest import PROFILES

SOURCE = PROFILES / "gpt_forward.sqlite"
K = "CUPTI_ACTIVITY_KIND_KERNEL"


def plant(folder: Path) -> tuple[Path, Path]:
    """(doctored, clean): copies of a real profile whose kernel table lost its NOT NULL constraints; the doctored one
    has one kernel without an end, one ending 1000 ns before it starts and a third repeated exactly; the clean one
    lacks the first two (the repeat is the original row)."""
    doctored, clean = folder / "doctored.sqlite", folder / "clean.sqlite"
    shutil.copy(SOURCE, doctored)
    with sqlite3.connect(doctored) as con:
        con.execute(f"CREATE TABLE k2 AS SELECT * FROM {K} ORDER BY rowid")
        con.execute(f"DROP TABLE {K}")
        con.execute(f"ALTER TABLE k2 RENAME TO {K}")
    con.close()
    shutil.copy(doctored, clean)
    a, b, c = 10, 20, 30  # rowids of three kernels
    with sqlite3.connect(doctored) as con:
        con.execute(f'UPDATE {K} SET "end" = NULL WHERE rowid = {a}')
        con.execute(f'UPDATE {K} SET "end" = start - 1000 WHERE rowid = {b}')
        con.execute(f"INSERT INTO {K} SELECT * FROM {K} WHERE rowid = {c}")
    con.close()
    with sqlite3.connect(clean) as con:
        con.execute(f"DELETE FROM {K} WHERE rowid IN ({a}, {b})")
    con.close()
    return doctored, clean


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    return plant(tmp_path_factory.mktemp("bad-rows"))


def stdout(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


REPORTS = [["kernels", "--format", "csv"], ["kernels", "--by-launch-config", "--format", "csv"],
           ["nvtx-kernels", "--format", "csv"], ["nvtx-gpu", "--format", "csv"], ["classify", "--format", "csv"],
           ["breakdown", "--format", "json"], ["diagnose", "--rule", "gpu_gaps", "--format", "csv"],
           ["sql", "SELECT count(*) AS n, min(duration_ns) AS shortest FROM kernels", "--format", "csv"]]


@pytest.mark.parametrize("args", REPORTS, ids=[" ".join(a[:2]) for a in REPORTS])
def test_reports_leave_bad_rows_out(planted, args):
    doctored, clean = planted
    command, *rest = args
    assert stdout(command, doctored, *rest).replace("doctored", "P") == stdout(command, clean, *rest).replace(
        "clean", "P")


def test_the_count_is_noted_like_nsys_skipped(planted):
    doctored, clean = planted
    result = CliRunner().invoke(cli, ["kernels", str(doctored), "--format", "csv"])
    assert result.exit_code == 0
    assert result.stderr.strip() == (f"Note: {doctored}: SKIPPED 3 kernel rows in every report: 1 without an end, "
                                     "1 ending before its start, 1 repeating another row exactly")
    assert CliRunner().invoke(cli, ["kernels", str(clean)]).stderr == ""


def test_api_counts_them(planted):
    doctored, _ = planted
    with nsys_analytics.open(doctored) as p:
        assert (p.bad_kernel_rows.no_end, p.bad_kernel_rows.negative, p.bad_kernel_rows.duplicates) == (1, 1, 1)
        [(shortest,)] = p.sql("SELECT min(duration_ns) FROM kernels").rows
        assert shortest > 0
        info = json.loads(stdout("info", doctored, "--format", "json"))
        assert info["row_counts"]["kernels"] == p.sql("SELECT count(*) FROM raw.CUPTI_ACTIVITY_KIND_KERNEL").rows[0][0] - 3


@pytest.fixture
def through_cache(monkeypatch, tmp_path):
    """Every profile read through the columnar cache, which stores the kernel table without its bad rows."""
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")


@pytest.mark.parametrize("args", REPORTS, ids=[" ".join(a[:2]) for a in REPORTS])
def test_cached_reports_leave_bad_rows_out(planted, through_cache, args):
    doctored, clean = planted
    command, *rest = args
    for _ in ("cold", "warm"):
        assert stdout(command, doctored, *rest).replace("doctored", "P") == stdout(command, clean, *rest).replace(
            "clean", "P")


def test_the_cache_notes_the_count_cold_and_warm(planted, through_cache):
    doctored, _ = planted
    for args in (["kernels"], ["kernels"], ["sql", "SELECT count(*) FROM kernels"]):
        result = CliRunner().invoke(cli, [args[0], str(doctored), *args[1:], "--format", "csv"])
        assert result.exit_code == 0, result.output
        assert result.stderr.strip() == (f"Note: {doctored}: SKIPPED 3 kernel rows in every report: 1 without an "
                                         "end, 1 ending before its start, 1 repeating another row exactly")
    with nsys_analytics.open(doctored) as p:
        assert p.bad_kernel_rows.total == 3
        assert p._cache.pcache is not None


@pytest.mark.parametrize("cached", [False, True], ids=["direct", "cached"])
def test_rows_sharing_a_start_are_not_repeats(tmp_path, monkeypatch, cached):
    """Two kernels may start at the same time (another stream, or a coarse GPU clock): a shared start only makes
    the check compare rows whole. A copy of a kernel with another grid is no repeat; with the grid put back it is.
    Expected counts by construction."""
    if cached:
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    profile = tmp_path / "shared.sqlite"
    shutil.copy(SOURCE, profile)
    with sqlite3.connect(profile) as con:
        con.execute(f"CREATE TABLE k2 AS SELECT * FROM {K} ORDER BY rowid")
        con.execute(f"DROP TABLE {K}")
        con.execute(f"ALTER TABLE k2 RENAME TO {K}")
        (n,) = con.execute(f"SELECT count(*) FROM {K}").fetchone()
        # kernel 10 on another stream at kernel 20's start; a copy of kernel 30 with another grid, as the last row
        con.execute(f'UPDATE {K} SET "end" = "end" - start + (SELECT start FROM {K} WHERE rowid = 20), '
                    f'start = (SELECT start FROM {K} WHERE rowid = 20), streamId = streamId + 100 WHERE rowid = 10')
        con.execute(f"INSERT INTO {K} SELECT * FROM {K} WHERE rowid = 30")
        con.execute(f"UPDATE {K} SET gridX = gridX + 1 WHERE rowid = {n + 1}")
    con.close()
    with nsys_analytics.open(profile) as p:
        assert p.bad_kernel_rows.total == 0
        assert p.sql("SELECT count(*) FROM kernels").rows[0][0] == n + 1
    with sqlite3.connect(profile) as con:  # now the copy repeats kernel 30 in every column
        con.execute(f"UPDATE {K} SET gridX = gridX - 1 WHERE rowid = {n + 1}")
    con.close()
    with nsys_analytics.open(profile) as p:
        assert (p.bad_kernel_rows.duplicates, p.bad_kernel_rows.total) == (1, 1)
        assert p.sql("SELECT count(*) FROM kernels").rows[0][0] == n
