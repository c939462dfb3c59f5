"""Long outputs (`sql`, `nvtx-gpu --trace`) are written batch by batch: the same text as rendering all rows."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics import profile as data_access
from nsys_analytics.cli.main import cli
from nsys_analytics.render import chunks, render

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
