"""`report`: sections (a)-(e) on the gpt fixtures, times checked against nsys' CSVs and a direct sqlite3
computation, and the per-section degradation messages."""

from __future__ import annotations

import json
import sqlite3
import statistics
from collections import defaultdict

import pytest
from click.testing import CliRunner

import nsys_analytics as na
from nsys_analytics.capabilities.assignment.report import ReportOptions, build_report
from nsys_analytics.capabilities.attention.flops import Shape
from nsys_analytics.capabilities.attention.report import AttentionOptions
from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, ORACLE, PROFILES, read_csv
from .test_attention import _by_launch, _windows
from .test_steady_state import TRAIN, steady_ops_by_sqlite

SHAPE_ARGS = ["--batch", "4", "--seq-len", "256", "--d-model", "256", "--heads", "4"]


@pytest.fixture(scope="module")
def report():
    with na.open(PROFILES / "gpt_forward.sqlite") as f, na.open(PROFILES / "gpt_train.sqlite") as t:
        options = ReportOptions(AttentionOptions(shape=Shape(4, 256, 4, 64)),
                                timeit=FIXTURES / "timeit" / "gpt_forward.csv")
        return build_report(f, t, options)


def _row(result, key, value):
    return next(dict(zip(result.columns, r)) for r in result.rows if r[result.columns.index(key)] == value)


def test_a_forward_time_matches_nsys_nvtx_sum(report):
    rows = read_csv(ORACLE / "gpt_forward" / "gpt_forward_nvtx_sum.csv")
    fwd = next(r for r in rows if r[-1] == ":forward")  # no `forward` range is inside `warmup`: all 3 count
    table = report.section("a").tables[0].result
    ours = dict(zip(table.columns, table.rows[0]))
    assert ours["count"] == int(fwd[2])
    assert ours["mean_us"] * 1e3 == pytest.approx(float(fwd[3]), abs=0.05)
    assert ours["std_us"] * 1e3 == pytest.approx(float(fwd[7]), abs=0.05)
    timer = _row(table, "source", "Python timer")
    seconds = [0.002347606, 0.002398158, 0.002223206]  # fixtures/timeit/gpt_forward.csv
    assert timer["mean_us"] == pytest.approx(statistics.fmean(seconds) * 1e6)
    assert any("agree within 5 %" in line for line in report.section("a").lines)


def test_b_forward_top_kernel_matches_nsys_nvtx_kern_sum(report):
    rows = read_csv(ORACLE / "gpt_forward" / "gpt_forward_nvtx_kern_sum.csv")
    forward = sorted((r for r in rows[1:] if r[0] == ":forward"), key=lambda r: -int(r[6]))
    table = report.section("b").tables[0].result
    ours = _row(table, "pass", "forward")
    assert (ours["kernel"], ours["total_time_ns"], ours["calls"]) == (forward[0][12], int(forward[0][6]),
                                                                     int(forward[0][5]))
    assert ours["time_pct"] == pytest.approx(100 * int(forward[0][6]) / sum(int(r[6]) for r in forward))


def _step_kernels_by_sqlite() -> dict[str, tuple[int, int]]:
    """Independent: kernels whose launch call (any thread) started inside a train_loop step range, per name."""
    con = sqlite3.connect(f"file:{PROFILES / 'gpt_train.sqlite'}?mode=ro", uri=True)
    steps = con.execute("SELECT start, end FROM NVTX_EVENTS WHERE eventType = 60").fetchall()
    rows = con.execute("SELECT s.value, r.start, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                       "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                       "JOIN StringIds s ON s.id = k.demangledName").fetchall()
    con.close()
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, launch, duration in rows:
        if any(a <= launch < b for a, b in steps):
            out[name][0] += 1
            out[name][1] += duration
    return {k: tuple(v) for k, v in out.items()}


def test_b_training_step_top_kernel_matches_direct_sqlite(report):
    by_name = _step_kernels_by_sqlite()
    top = max(by_name, key=lambda k: by_name[k][1])
    ours = _row(report.section("b").tables[0].result, "pass", "training step")
    assert (ours["kernel"], ours["calls"], ours["total_time_ns"]) == (top, *by_name[top])
    d = report.section("d").tables[0].result  # the steady state: kernels, copies and memsets of the steps
    assert sum(r[3] for r in d.rows if r[0].startswith("all ")) == sum(steady_ops_by_sqlite(TRAIN).values())
    assert "same kernel" in report.section("b").lines[-1]


def test_c_and_d_shares_add_up(report):
    c = report.section("c").tables[0].result
    assert 1 <= len(c) <= 8 and all(r[5] >= 1.0 for r in c.rows) and "matmul" not in c.column("category")
    d = report.section("d").tables[0].result
    groups = [r for r in d.rows if r[0].startswith("all ")]
    assert sum(r[2] for r in groups) == pytest.approx(100.0) and sum(r[4] for r in groups) == pytest.approx(100.0)
    assert sum(r[1] for r in d.rows if not r[0].startswith("all ")) == groups[1][1]  # non-matmul categories


def test_c_and_d_softmax_is_the_attention_softmax_not_the_loss(report):
    """(d)'s forward softmax is the kernels launched in the 'computing_softmax' ranges after warm-up (sqlite3 here);
    the loss's log-softmax (LogSoftMaxForwardEpilogue) is loss in (c) and (d), and a note says so."""
    d = report.section("d")
    softmax = _row(d.tables[0].result, "category", "softmax")["forward_ns"]
    assert softmax == _by_launch("gpt_forward", _windows("gpt_forward", "computing_softmax", True))
    c = report.section("c")
    log_softmax = next(r for r in c.tables[0].result.rows if "LogSoftMaxForwardEpilogue" in r[1])
    assert log_softmax[0] == "loss"
    assert any("log-softmax" in n for n in c.notes) and any("log-softmax" in n for n in d.notes)


def test_e_uses_attention_analysis(report):
    e = report.section("e")
    assert e.missing is None and any("softmax: memory-bound" in line for line in e.lines)


def test_degradation_messages():
    with na.open(PROFILES / "no_nvtx.sqlite") as p:
        r = build_report(p, None)
    assert "--trace=cuda,nvtx" in r.section("a").missing
    assert r.section("b").missing is None and "no training profile" in r.section("b").notes[0]
    assert "--train" in r.section("d").missing
    assert "--trace=cuda,nvtx" in r.section("e").missing
    with na.open(PROFILES / "gpt_forward.sqlite") as p:
        e = build_report(p, None).section("e")
    assert any("--batch" in line for line in e.lines)  # no shape: times only, and the options to add


def test_cli_formats():
    args = ["report", "--forward", str(PROFILES / "gpt_forward.sqlite"), "--train",
            str(PROFILES / "gpt_train.sqlite"), *SHAPE_ARGS]
    runner = CliRunner()
    text = runner.invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert all(f"({k})" in text.output for k in "abcdef")
    doc = json.loads(runner.invoke(cli, args + ["--format", "json"]).output)
    assert list(doc["sections"]) == list("abcdef")
    assert all(doc["sections"][k]["missing"] is None for k in "abcde")
    assert "instrument(model, layers=True)" in doc["sections"]["f"]["missing"]  # no module ranges: what to add
    assert "## (e) Attention" in runner.invoke(cli, args + ["--format", "markdown"]).output


def test_the_forward_profiles_attribution_is_computed_once_for_all_sections(monkeypatch):
    """(a), (b)/(c) and (e) read the forward profile's NVTX attribution from one table made once (attributed_ops),
    not each from _op_ranges again: the forward profile's queries name _op_ranges exactly once, the training
    profile's (read by (b) alone) once."""
    from nsys_analytics.data import schema_objects
    from nsys_analytics.data.profile import Profile

    reads: dict[str, int] = defaultdict(int)
    sql = Profile.sql

    def counting(self, query, params=None, stream=False):
        if "_op_ranges" in schema_objects.wanted_by(query):
            reads[self.path.name] += 1
        return sql(self, query, params, stream)

    monkeypatch.setattr(Profile, "sql", counting)
    with na.open(PROFILES / "gpt_forward.sqlite") as f, na.open(PROFILES / "gpt_train.sqlite") as t:
        report = build_report(f, t, ReportOptions(AttentionOptions(shape=Shape(4, 256, 4, 64))))
    assert all(s.missing is None for s in report.sections[:5]), [s.missing for s in report.sections]
    assert "emit_nvtx" in report.sections[5].missing  # (f): no module ranges, found without attributing kernels
    assert dict(reads) == {"gpt_forward.sqlite": 1, "gpt_train.sqlite": 1}


def test_the_shared_attribution_table_is_dropped_after_the_report():
    with na.open(PROFILES / "gpt_forward.sqlite") as f:
        before = f.sql("SELECT count(*) FROM duckdb_tables() WHERE temporary").rows
        build_report(f, None, ReportOptions())
        assert f.sql("SELECT count(*) FROM duckdb_tables() WHERE temporary").rows == before
