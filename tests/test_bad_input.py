"""Each kind of bad input: a one-line message naming the file, the problem and the fix; exit 1 or 2."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES

GOOD = PROFILES / "gpt_train.sqlite"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def assert_one_line_error(result, code: int, *words: str) -> None:
    assert result.exit_code == code, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for w in words:
        assert w in lines[0], lines[0]
    assert "Traceback" not in result.output


def test_missing_file(tmp_path):
    assert_one_line_error(run("kernels", str(tmp_path / "nope.sqlite")), 1, "nope.sqlite", "no such file")


def test_directory(tmp_path):
    assert_one_line_error(run("kernels", str(tmp_path)), 1, "is a directory", "nsys export")


def test_not_sqlite(tmp_path):
    f = tmp_path / "notes.sqlite"
    f.write_text("hello, this is text and not a database at all " * 10)
    assert_one_line_error(run("info", str(f)), 1, "notes.sqlite", "not an SQLite file")


def test_empty_file(tmp_path):
    f = tmp_path / "empty.sqlite"
    f.touch()
    assert_one_line_error(run("kernels", str(f)), 1, "is empty")


def test_sqlite_but_not_nsys(tmp_path):
    f = tmp_path / "other.sqlite"
    with sqlite3.connect(f) as con:
        con.execute("CREATE TABLE people (name TEXT)")
    assert_one_line_error(run("kernels", str(f)), 1, "not an Nsight Systems export")


def test_truncated(tmp_path):
    f = tmp_path / "cut.sqlite"
    f.write_bytes(GOOD.read_bytes()[: GOOD.stat().st_size // 3])
    assert_one_line_error(run("kernels", str(f)), 1, "truncated")


def test_corrupt_pages(tmp_path):
    f = tmp_path / "corrupt.sqlite"
    data = bytearray(GOOD.read_bytes())
    data[4096:40960] = b"\xff" * (40960 - 4096)  # overwrite the pages after the header page
    f.write_bytes(bytes(data))
    result = run("kernels", str(f))
    assert_one_line_error(result, 1, "corrupt.sqlite")


def test_being_written(tmp_path):
    f = tmp_path / "live.sqlite"
    shutil.copy(GOOD, f)
    Path(f"{f}-journal").write_bytes(b"")
    assert_one_line_error(run("kernels", str(f)), 1, "being written")


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads any file")
def test_no_permission(tmp_path):
    f = tmp_path / "secret.sqlite"
    shutil.copy(GOOD, f)
    f.chmod(0)
    assert_one_line_error(run("kernels", str(f)), 1, "permission denied")


def test_ncu_report_given_to_nsys_command(tmp_path):
    f = tmp_path / "kernels.ncu-rep"
    f.write_bytes(b"NVIDIA Nsight Compute report")
    assert_one_line_error(run("kernels", str(f)), 1, "Nsight Compute report", "Nsight Systems")


def test_nsys_rep_without_nsys(tmp_path, monkeypatch):
    rep = tmp_path / "run.nsys-rep"
    shutil.copy(PROFILES / "no_nvtx.nsys-rep", rep)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert_one_line_error(run("kernels", str(rep)), 1, "nsys export --type sqlite")


def test_profile_without_kernels(tmp_path):
    f = tmp_path / "nvtx_only.sqlite"
    with sqlite3.connect(f) as con:
        con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    assert_one_line_error(run("kernels", str(f)), 1, "no CUDA kernels", "--trace=cuda")


def test_usage_errors_exit_2():
    assert_one_line_error(run("kernels", str(GOOD), "--match", "("), 2, "regular expression")
    assert_one_line_error(run("kernels", str(GOOD), "--start", "soon"), 2, "time 'soon'")
    assert_one_line_error(run("sql", str(GOOD), "SELEC nothing"), 2, "SQL error")
    assert_one_line_error(run("schema", "no_such_view"), 2, "no view")


def test_debug_shows_traceback(tmp_path):
    result = run("--debug", "kernels", str(tmp_path / "nope.sqlite"))
    assert result.exit_code != 0
    assert result.exception is not None and "no such file" in str(result.exception)


def test_input_never_modified(tmp_path):
    f = tmp_path / "ro.sqlite"
    shutil.copy(GOOD, f)
    f.chmod(stat.S_IRUSR | stat.S_IRGRP)
    before = (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns)
    for args in (["kernels"], ["info"], ["sql", "--format", "csv"], ["kernels", "--by-launch-config"]):
        extra = ["SELECT count(*) FROM kernels"] if args[0] == "sql" else []
        result = run(args[0], str(f), *args[1:], *extra)
        assert result.exit_code == 0, result.output
    assert (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro.sqlite"]  # no journal or cache left behind


@pytest.mark.parametrize("suffix,tool", [(".xz", "xz"), (".gz", "gzip"), (".bz2", "bzip2")])
def test_compressed_export_says_decompress_it(tmp_path, suffix, tool):
    """An export shipped compressed (the project's own fixtures are .sqlite.xz) read as "not an SQLite file", and a
    folder of them as "no nsys profile in it": both now say it is compressed and how to decompress it."""
    import bz2
    import gzip
    import lzma

    opener = {".xz": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}[suffix]
    folder = tmp_path / "ranks"
    folder.mkdir()
    packed = folder / f"gpt_train.sqlite{suffix}"
    with opener(packed, "wb") as f:
        f.write(GOOD.read_bytes()[:1 << 16])
    assert_one_line_error(run("kernels", str(packed)), 1, packed.name, f"is compressed ({tool})",
                          f"`{tool} -dk FILE`")
    assert_one_line_error(run("ranks", str(folder)), 1, packed.name, f"compressed: decompress it first, `{tool} -dk")
