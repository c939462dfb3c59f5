"""parquetdir / arrowdir exports open as profiles with the same schema. The oracle tests run on a parquetdir
twin of every fixture (conftest.py); here: Arrow IPC folders, and what a wrong folder says."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES, to_parquetdir

TRAIN = PROFILES / "gpt_train.sqlite"


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
    from nsys_analytics.errors import ProfileError

    with pytest.raises(ProfileError, match="is a directory.*parquetdir"):
        nsys_analytics.open(tmp_path)


def test_a_folder_mixing_formats_is_refused(tmp_path):
    folder = to_parquetdir(TRAIN, tmp_path / "p")
    (folder / "Extra.arrow").write_bytes(b"")
    result = run("kernels", str(folder))
    assert result.exit_code == 1 and "both .parquet and .arrow" in result.output
