"""Long outputs (`sql`, `nvtx-gpu --trace`) are written batch by batch: the same text as rendering all rows."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.data import profile as data_access
from nsys_analytics.cli.main import cli
from nsys_analytics.output.render import chunks, render

from .conftest import PROFILES

TRAIN = PROFILES / "gpt_train.sqlite"
QUERY = "SELECT start_ns, duration_ns, name, duration_ns / 3 AS third FROM kernels ORDER BY start_ns, name"


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown", "table"])
def test_a_streamed_result_renders_as_the_whole_one(fmt, monkeypatch):
    monkeypatch.setattr(data_access, "BATCH_ROWS", 7)
    with nsys_analytics.open(TRAIN) as p:
        whole = render(p.sql(QUERY), fmt)
        streamed = p.sql(QUERY, stream=True)
        pieces = list(chunks(streamed, fmt))
    assert "".join(pieces) == whole
    if fmt in ("csv", "json"):
        assert len(pieces) > 100  # written a batch at a time


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_empty_streamed_result(fmt):
    with nsys_analytics.open(TRAIN) as p:
        query = "SELECT * FROM kernels WHERE false"
        assert "".join(chunks(p.sql(query, stream=True), fmt)) == render(p.sql(query), fmt)


def test_sql_and_trace_commands_stream(monkeypatch, tmp_path):
    runner = CliRunner()
    monkeypatch.setattr(data_access, "BATCH_ROWS", 5)
    small = runner.invoke(cli, ["nvtx-gpu", str(TRAIN), "--trace", "--format", "csv"])
    out = tmp_path / "q.csv"
    written = runner.invoke(cli, ["sql", str(TRAIN), QUERY, "--format", "csv", "-o", str(out)])
    monkeypatch.setattr(data_access, "BATCH_ROWS", 100_000)
    whole = runner.invoke(cli, ["nvtx-gpu", str(TRAIN), "--trace", "--format", "csv"])
    assert small.exit_code == whole.exit_code == 0, small.output
    assert small.output == whole.output and small.output.count("\n") > 10
    with nsys_analytics.open(TRAIN) as p:
        n = p.sql("SELECT count(*) FROM kernels").rows[0][0]
        assert out.read_text() == render(p.sql(QUERY), "csv")
    assert f"wrote {n} rows" in written.output


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_long_result_goes_to_the_file_batch_by_batch(fmt, monkeypatch, tmp_path):
    from nsys_analytics.core.result import Result

    monkeypatch.setattr(data_access, "BATCH_ROWS", 7)
    monkeypatch.setattr(Result, "materialize", lambda self: pytest.fail("the whole result was read into Python"))
    out = tmp_path / f"q.{fmt}"
    written = CliRunner().invoke(cli, ["sql", str(TRAIN), QUERY, "--format", fmt, "-o", str(out)])
    assert written.exit_code == 0, written.output
    monkeypatch.undo()
    with nsys_analytics.open(TRAIN) as p:
        assert out.read_text() == render(p.sql(QUERY), fmt)


def test_an_output_that_is_not_a_regular_file_is_written_to_not_replaced(tmp_path):
    """-o /dev/null or a FIFO must stay what it is: a rename over it would replace a device with a file (tested
    on a FIFO, so that a failure cannot break this machine's /dev/null)."""
    import os
    import stat
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    written = CliRunner().invoke(cli, ["sql", str(TRAIN), QUERY, "--format", "csv", "-o", str(fifo)])
    reader.join(timeout=30)
    assert written.exit_code == 0, written.output
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    with nsys_analytics.open(TRAIN) as p:
        assert received == [render(p.sql(QUERY), "csv")]
