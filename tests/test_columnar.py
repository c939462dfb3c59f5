"""parquetdir / arrowdir exports open as profiles with the same schema. The oracle tests run on a parquetdir
twin of every fixture (conftest.py) and on the folders nsys 2025.3 wrote of gpt_train_cols; here: every other
report on those real folders, Arrow IPC folders of our own (file and stream formats), and what a wrong folder
says."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import NSYS_FORMS, PROFILES, nsys_folder, to_parquetdir

TRAIN = PROFILES / "gpt_train.sqlite"
COLS = PROFILES / "gpt_train_cols.sqlite"  # with the parquetdir and arrowdir folders nsys wrote of its report
# Reports beyond the oracle tests' (those run in every form through conftest's cache modes).
REPORTS = [["kernels", "--name", "short"], ["kernels", "--name", "mangled"], ["kernels", "--by-launch-config"],
           ["nvtx-kernels", "--name", "short"], ["nvtx-kernels", "--attribution", "gpu"], ["breakdown"],
           ["diagnose"], ["sql", "SELECT count(*), sum(duration_ns), min(start_ns) FROM kernels"]]


def run(*args):
    return CliRunner().invoke(cli, list(args))


def to_arrowdir(sqlite, folder, stream: bool):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    parquet = to_parquetdir(sqlite, folder.parent / f"{folder.name}-parquet")
    folder.mkdir()
    for f in parquet.glob("*.parquet"):
        table = pq.read_table(f)
        with pa.OSFile(str(folder / f"{f.stem}.arrow"), "wb") as sink:
            writer = (ipc.new_stream if stream else ipc.new_file)(sink, table.schema)
            writer.write_table(table)
            writer.close()
    return folder


@pytest.mark.parametrize("stream", [False, True], ids=["ipc-file", "ipc-stream"])
@pytest.mark.parametrize("command", [["kernels"], ["nvtx-kernels"], ["diagnose", "--format", "json"]])
def test_arrowdir_gives_the_answers_of_the_sqlite_export(tmp_path, stream, command):
    folder = to_arrowdir(TRAIN, tmp_path / "arrow", stream)
    expected = run(command[0], str(TRAIN), *command[1:])
    got = run(command[0], str(folder), *command[1:])
    assert expected.exit_code == got.exit_code == 0, got.output
    assert got.output == expected.output.replace(str(TRAIN), str(folder))


@pytest.mark.parametrize("form", NSYS_FORMS)
@pytest.mark.parametrize("command", REPORTS, ids=[" ".join(c[:3]) for c in REPORTS])
def test_folders_nsys_wrote_give_the_answers_of_its_sqlite_export(form, command):
    folder = nsys_folder(COLS.stem, form)
    expected = run(command[0], str(COLS), *command[1:], "--format", "csv")
    got = run(command[0], str(folder), *command[1:], "--format", "csv")
    assert expected.exit_code == got.exit_code == 0, got.output
    assert got.output == expected.output.replace(str(COLS), str(folder))


def test_the_folders_hold_the_tables_the_reports_read():
    """What nsys 2025.3 wrote: one file per table, the SQLite export's columns, rows in rowid order."""
    import sqlite3

    con = sqlite3.connect(f"file:{COLS}?mode=ro", uri=True)
    try:
        kernels = con.execute("SELECT count(*), max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    finally:
        con.close()
    for form in NSYS_FORMS:
        folder = nsys_folder(COLS.stem, form)
        assert {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "StringIds"} <= {
            f.stem for f in folder.iterdir()}
        got = run("sql", str(folder), "SELECT count(*), max(rowid) FROM raw.CUPTI_ACTIVITY_KIND_KERNEL",
                  "--format", "csv")
        assert got.output.splitlines()[1] == f"{kernels[0]},{kernels[1]}"


def test_sql_reads_raw_tables_of_a_parquetdir(tmp_path):
    folder = to_parquetdir(TRAIN, tmp_path / "p")
    query = "SELECT count(*), min(rowid), max(rowid) FROM raw.CUPTI_ACTIVITY_KIND_KERNEL"
    assert run("sql", str(folder), query, "--format", "csv").output == \
        run("sql", str(TRAIN), query, "--format", "csv").output


def test_a_folder_without_tables_is_one_line_error(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    result = run("kernels", str(tmp_path))  # read as a folder of rank profiles, holding none
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "is a directory" in result.output
    import nsys_analytics
    from nsys_analytics.core.errors import ProfileError

    with pytest.raises(ProfileError, match="is a directory.*parquetdir"):
        nsys_analytics.open(tmp_path)


def test_a_folder_mixing_formats_is_refused(tmp_path):
    folder = to_parquetdir(TRAIN, tmp_path / "p")
    (folder / "Extra.arrow").write_bytes(b"")
    result = run("kernels", str(folder))
    assert result.exit_code == 1 and "both .parquet and .arrow" in result.output
