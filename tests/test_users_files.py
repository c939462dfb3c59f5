"""A user's files are never modified, replaced or deleted, and nothing is created beside them (issue #12, items 1,
2, 4, 15): `.nsys-rep` exports go to the cache folder, `-o` never names an input and is written atomically, WAL-mode
exports are read without their -wal/-shm."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES

GOOD = PROFILES / "no_nvtx.sqlite"
REPORT = PROFILES / "no_nvtx.nsys-rep"  # written by nsys 2025.3.1
OLD = 1_000_000_000  # an mtime (2001) older than any report


def run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def folder_state(folder: Path) -> dict[str, str]:
    """{name: sha256} of every entry in a folder (what a test checks is left exactly as it was)."""
    return {p.name: digest(p) if p.is_file() else "" for p in sorted(folder.iterdir())}


def one_line_error(result, code: int, *words: str) -> str:
    assert result.exit_code == code, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def fake_nsys(tmp_path, monkeypatch):
    """A stand-in `nsys` on PATH: `--version` says 2022.4; `export` copies a real export to --output, or fails like
    a real one (`fail=` a message), after truncating the output file as a failing export does."""
    bindir = tmp_path / "fake-bin"
    bindir.mkdir()
    calls = tmp_path / "fake-calls.txt"

    def install(fail: str | None = None) -> Path:
        script = bindir / "nsys"
        script.write_text(textwrap.dedent(f"""\
            #!{sys.executable}
            import shutil, sys
            args = sys.argv[1:]
            if args == ["--version"]:
                print("NVIDIA Nsight Systems version 2022.4.2.1-df9881f")
                sys.exit(0)
            open({str(calls)!r}, "a").write(" ".join(args) + "\\n")
            out = args[args.index("--output") + 1]
            if {fail!r}:
                open(out, "wb").close()
                print({fail!r}, file=sys.stderr)
                sys.exit(1)
            shutil.copy({str(GOOD)!r}, out)
            """))
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return calls

    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return install


@pytest.fixture
def report_dir(tmp_path):
    """A folder holding run.nsys-rep and the user's own, older, run.sqlite export of something else."""
    folder = tmp_path / "user"
    folder.mkdir()
    shutil.copy(REPORT, folder / "run.nsys-rep")
    user_export = folder / "run.sqlite"
    shutil.copy(PROFILES / "gpt_forward.sqlite", user_export)
    os.utime(user_export, (OLD, OLD))
    return folder


# -- item 1: an .nsys-rep never replaces or deletes the user's export ----------------------------------------------
def test_older_export_beside_a_report_is_left_alone(report_dir, fake_nsys, tmp_path):
    calls = fake_nsys()
    before = folder_state(report_dir)
    result = run("kernels", report_dir / "run.nsys-rep", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output == run("kernels", GOOD, "--format", "csv").output  # the fresh export, not the old file
    assert folder_state(report_dir) == before  # run.sqlite untouched, nothing new beside the report
    assert os.stat(report_dir / "run.sqlite").st_mtime == OLD
    assert "export --type sqlite" in calls.read_text()
    assert str(report_dir) not in calls.read_text().split("--output")[1].split()[0]


def test_failed_export_keeps_the_users_export(report_dir, fake_nsys):
    fake_nsys(fail="Exportation error: Version number is invalid: 99")
    before = folder_state(report_dir)
    one_line_error(run("kernels", report_dir / "run.nsys-rep"), 1, "run.nsys-rep")
    assert folder_state(report_dir) == before


def test_export_is_reused_from_the_cache_and_reexport_asks_again(report_dir, fake_nsys, tmp_path):
    calls = fake_nsys()
    rep = report_dir / "run.nsys-rep"
    assert run("kernels", rep).exit_code == 0
    assert run("kernels", rep).exit_code == 0
    assert len(calls.read_text().splitlines()) == 1
    assert run("--reexport", "kernels", rep).exit_code == 0
    assert len(calls.read_text().splitlines()) == 2
    exports = list(Path(os.environ["NSYS_ANALYTICS_CACHE"]).rglob("*.sqlite"))
    assert len(exports) == 1 and digest(exports[0]) == digest(GOOD)  # replaced in the cache, no temp files left
    assert sorted(p.name for p in report_dir.iterdir()) == ["run.nsys-rep", "run.sqlite"]


def test_newer_export_beside_a_report_is_read_not_exported(report_dir, fake_nsys):
    calls = fake_nsys()
    user_export = report_dir / "run.sqlite"
    shutil.copy(GOOD, user_export)  # newer than the report now
    before = folder_state(report_dir)
    assert run("kernels", report_dir / "run.nsys-rep").exit_code == 0
    assert not calls.exists()
    assert run("--reexport", "kernels", report_dir / "run.nsys-rep").exit_code == 0
    assert len(calls.read_text().splitlines()) == 1
    assert folder_state(report_dir) == before


# -- item 15: a report newer than the installed nsys ----------------------------------------------------------------
def test_report_newer_than_the_installed_nsys_names_both_versions(report_dir, fake_nsys):
    fake_nsys(fail="Exportation error: Version number is invalid: 36398880")
    line = one_line_error(run("kernels", report_dir / "run.nsys-rep"), 1, "2025.3", "2022.4", "newer")
    assert "installed" in line


@pytest.mark.skipif(shutil.which("nsys") is None or not os.popen("nsys --version").read().count("2022.4"),
                    reason="needs Nsight Systems 2022.4 (bench/install_nsys_2022.sh)")
def test_real_nsys_2022_on_a_2025_report(report_dir):
    before = folder_state(report_dir)
    line = one_line_error(run("kernels", report_dir / "run.nsys-rep"), 1, "2025.3.1", "2022.4", "newer")
    assert "export it where" in line
    assert folder_state(report_dir) == before


def test_report_version_is_read_from_the_file():
    from nsys_analytics.data.source import report_writer_version

    assert report_writer_version(REPORT) == "2025.3.1"


# -- item 2: -o never names an input; outputs are written atomically -----------------------------------------------
@pytest.fixture
def profile_dir(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    shutil.copy(GOOD, folder / "P.sqlite")
    return folder


OUTPUT_CASES = {
    "sql": ["sql", "{P}", "SELECT 1", "--format", "csv", "-o", "{O}"],
    "kernels": ["kernels", "{P}", "-o", "{O}"],
    "info": ["info", "{P}", "-o", "{O}"],
    "info-json": ["info", "{P}", "--format", "json", "-o", "{O}"],
    "nvtx": ["nvtx", "{P}", "-o", "{O}"],
    "classify": ["classify", "{P}", "-o", "{O}"],
    "breakdown": ["breakdown", "{P}", "-o", "{O}"],
    "breakdown-plot": ["breakdown", "{P}", "--plot", "{O}"],
    "diagnose": ["diagnose", "{P}", "-o", "{O}"],
    "report": ["report", "--forward", "{P}", "-o", "{O}"],
    "attention": ["attention", "{P}", "-o", "{O}"],
    "sql-attached": ["sql", "{Q}", "-a", "b={P}", "SELECT 1", "-o", "{O}"],
}


@pytest.mark.parametrize(("case", "how"), [(case, "same path") for case in sorted(OUTPUT_CASES)]
                         + [("sql", "hard link"), ("kernels", "symbolic link"), ("breakdown-plot", "hard link")])
def test_output_that_is_an_input_is_refused(profile_dir, case, how):
    profile = profile_dir / "P.sqlite"
    other = profile_dir / "Q.sqlite"
    shutil.copy(GOOD, other)
    output = profile
    if how == "hard link":  # a --plot name must end in .png (refused before any read): the link is named so
        output = profile_dir / ("hard.png" if case == "breakdown-plot" else "hard.sqlite")
        os.link(profile, output)
    elif how == "symbolic link":
        output = profile_dir / "soft.sqlite"
        output.symlink_to(profile)
    before = folder_state(profile_dir)
    args = [a.format(P=profile, Q=other, O=output) for a in OUTPUT_CASES[case]]
    plot_name = case == "breakdown-plot" and output.suffix != ".png"  # the profile itself: no .png name
    one_line_error(run(*args), 2, "give a file name ending in .png" if plot_name else "is an input profile or file")
    assert folder_state(profile_dir) == before


def test_output_in_a_missing_folder_is_one_line(profile_dir, tmp_path):
    one_line_error(run("kernels", profile_dir / "P.sqlite", "-o", tmp_path / "nope" / "out.txt"), 2, "nope")


def test_output_replaces_a_file_whole_and_leaves_no_temporary(profile_dir, tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "k.csv"
    out.write_text("x" * 100_000)
    out.chmod(0o640)
    assert run("kernels", profile_dir / "P.sqlite", "--format", "csv", "-o", out).exit_code == 0
    assert out.read_text() == run("kernels", profile_dir / "P.sqlite", "--format", "csv").output
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in out_dir.iterdir()] == ["k.csv"]


def test_output_through_a_symbolic_link_writes_the_target(profile_dir, tmp_path):
    target = tmp_path / "target.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert run("kernels", profile_dir / "P.sqlite", "--format", "csv", "-o", link).exit_code == 0
    assert link.is_symlink() and target.read_text().startswith("Time (%)")


def test_output_onto_a_named_pipe_writes_into_it_and_leaves_it_a_pipe(profile_dir, tmp_path):
    """A device or a FIFO (`-o /dev/null`, `-o >(gzip)`) is written into, never replaced by a regular file."""
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    result = run("kernels", profile_dir / "P.sqlite", "--format", "csv", "-o", fifo)
    reader.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and got[0].startswith("Time (%)")


# -- item 4: WAL-mode exports ---------------------------------------------------------------------------------------
def wal_copy(folder: Path) -> Path:
    path = folder / "wal.sqlite"
    shutil.copy(GOOD, path)
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    con.close()
    assert path.read_bytes()[18:20] == b"\x02\x02" and not Path(f"{path}-wal").exists()
    return path


def test_wal_mode_export_is_read_without_creating_anything_beside_it(tmp_path):
    folder = tmp_path / "w"
    folder.mkdir()
    path = wal_copy(folder)
    before = folder_state(folder)
    expected = run("kernels", GOOD, "--format", "csv").output
    for _ in range(2):  # a second run must not find leftovers of the first
        result = run("kernels", path, "--format", "csv")
        assert result.exit_code == 0, result.output
        assert result.output == expected
        assert folder_state(folder) == before


def test_wal_export_with_a_live_writer_is_being_written(tmp_path):
    path = wal_copy(tmp_path)
    writer = sqlite3.connect(path)
    try:
        writer.execute("CREATE TABLE extra (x)")
        writer.execute("INSERT INTO extra VALUES (1)")
        writer.commit()  # committed into the -wal, not yet checkpointed into the file
        assert Path(f"{path}-wal").stat().st_size > 0
        one_line_error(run("kernels", path), 1, "being written")
    finally:
        writer.close()
