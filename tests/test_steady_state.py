"""The steady state (the step ranges, warm-up excluded) is the default window of `breakdown`, `report` and `diagnose`,
one definition for all three, printed by each; `--window all` is the whole capture. Figures are checked against
sqlite3 queries written here and against nsys' CSVs."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

import pytest
from click.testing import CliRunner

from nsys_analytics.capabilities.categories import load_rules
from nsys_analytics.cli.main import cli

from .conftest import PROFILES, oracle_csv, read_csv

TRAIN, FORWARD = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_forward.sqlite"
RULES = load_rules()


def run(*args, code: int = 0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def steps(path) -> list[tuple[int, int]]:
    """(start, end) of the train_loop step ranges after the `warmup` range, read with sqlite3."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        text = "coalesce(e.text, s.value)"  # registered strings: the text is in StringIds
        [(warm_end,)] = con.execute(f"SELECT max(e.end) FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId "
                                    f"WHERE {text} = 'warmup'").fetchall()
        rows = con.execute(f"SELECT e.start, e.end FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId "
                           f"WHERE {text} GLOB 'step_*' AND e.start >= ? ORDER BY e.start",
                           (warm_end or 0,)).fetchall()
    finally:
        con.close()
    return rows


def steady_ops_by_sqlite(path) -> dict[str, int]:
    """{category: ns} of the kernels, copies and memsets launched (on any thread) inside a step range after warm-up."""
    windows = steps(path)
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = dict(con.execute("SELECT id, value FROM StringIds"))
        launches = dict(con.execute("SELECT correlationId, start FROM CUPTI_ACTIVITY_KIND_RUNTIME"))
        out: dict[str, int] = defaultdict(int)
        for table, category in (("KERNEL", None), ("MEMCPY", "memory"), ("MEMSET", "memory")):
            name = "demangledName" if category is None else "NULL"
            for corr, duration, name_id in con.execute(
                    f"SELECT correlationId, end - start, {name} FROM CUPTI_ACTIVITY_KIND_{table}"):
                launch = launches.get(corr)
                if launch is not None and any(a <= launch < b for a, b in windows):
                    out[category or RULES.classify(names[name_id]).category] += duration
    finally:
        con.close()
    return dict(out)


# -- breakdown and report ----------------------------------------------------------------------------------

def breakdown_json(*args) -> dict:
    return json.loads(run("breakdown", *args, "--format", "json").stdout)


def test_breakdown_default_is_the_steady_state_and_says_so():
    doc = breakdown_json(TRAIN)
    expected = steady_ops_by_sqlite(TRAIN)
    ours = {r["category"]: r["time_ns"] for r in doc["sections"]["categories"]["rows"]}
    assert ours == expected
    text = run("breakdown", TRAIN).stdout
    assert "steady state" in text and "'step_*'" in text and "warm-up" in text and "--window all" in text


def test_breakdown_window_all_is_the_whole_capture_as_nsys_counts_it():
    rows = read_csv(oracle_csv(TRAIN, "cuda_gpu_kern_sum"))
    total = sum(int(r[1]) for r in rows[1:])
    doc = breakdown_json(TRAIN, "--window", "all", "--kernels-only")
    assert sum(r["time_ns"] for r in doc["sections"]["categories"]["rows"]) == total
    assert "whole capture" in run("breakdown", TRAIN, "--window", "all").stdout


def test_breakdown_and_report_agree_on_inference_vs_training():
    doc = breakdown_json(FORWARD, TRAIN)
    rollup = {r["group"]: r for r in doc["sections"]["rollup"]["rows"]}
    report = json.loads(run("report", "--forward", FORWARD, "--train", TRAIN, "--format", "json").stdout)
    d = {r["category"]: r for r in report["sections"]["d"]["tables"][0]["rows"]}
    keys = [k for k in rollup["matmul"] if k.endswith("_time_pct")]
    assert d["all matmul"]["forward_pct"] == pytest.approx(rollup["matmul"][keys[0]])
    assert d["all matmul"]["train_pct"] == pytest.approx(rollup["matmul"][keys[1]])
