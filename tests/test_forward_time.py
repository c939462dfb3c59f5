"""`report` (a): the forward pass's CPU range time, its GPU projection (= nsys nvtx_gpu_proj_sum) and the time from
the range's start to the end of its GPU work, with the sentence that says which one is the time of the forward pass."""

from __future__ import annotations

import json
import sqlite3
import statistics

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, ORACLE, PROFILES, read_csv

FORWARD = PROFILES / "gpt_forward.sqlite"


@pytest.fixture(scope="module")
def section_a():
    result = CliRunner().invoke(cli, ["report", "--forward", str(FORWARD), "--timeit",
                                      str(FIXTURES / "timeit" / "gpt_forward.csv"), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["sections"]["a"]


def rows(section):
    return {r["source"]: r for r in section["tables"][0]["rows"] if r["what"] == "forward profile"}


def to_gpu_end_by_sqlite() -> list[int]:
    """Per `forward` range: the end of the last GPU operation it launched (any thread) minus the range's start."""
    con = sqlite3.connect(f"file:{FORWARD}?mode=ro", uri=True)
    try:
        ranges = con.execute("SELECT e.start, e.end FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId "
                             "WHERE coalesce(e.text, s.value) = 'forward' ORDER BY e.start").fetchall()
        ops = con.execute("SELECT r.start, o.end FROM (SELECT correlationId, end FROM CUPTI_ACTIVITY_KIND_KERNEL "
                          "UNION ALL SELECT correlationId, end FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                          "UNION ALL SELECT correlationId, end FROM CUPTI_ACTIVITY_KIND_MEMSET) o "
                          "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = o.correlationId").fetchall()
    finally:
        con.close()
    out = []
    for start, end in ranges:
        last = max(e for launch, e in ops if start <= launch <= end)  # launch: the API call's start
        out.append(max(last, end) - start)
    return out


def test_gpu_projection_equals_nsys(section_a):
    oracle = next(r for r in read_csv(ORACLE / "gpt_forward" / "gpt_forward_nvtx_gpu_proj_sum.csv")
                  if r[0] == ":forward")
    header = read_csv(ORACLE / "gpt_forward" / "gpt_forward_nvtx_gpu_proj_sum.csv")[0]
    row = rows(section_a)["NVTX 'forward' on the GPU"]
    assert row["count"] == int(oracle[header.index("Range Instances")])
    assert row["mean_us"] * 1e3 == pytest.approx(float(oracle[header.index("Proj Avg (ns)")]), abs=0.05)


def test_range_start_to_gpu_completion_matches_sqlite(section_a):
    row = rows(section_a)["NVTX 'forward' to GPU end"]
    assert row["mean_us"] * 1e3 == pytest.approx(statistics.fmean(to_gpu_end_by_sqlite()), abs=0.05)


def test_the_answer_is_named_and_explained(section_a):
    lines = " ".join(section_a["lines"])
    assert "time of the forward pass" in lines
    assert "synchronize" in lines
    end = rows(section_a)["NVTX 'forward' to GPU end"]["mean_us"] / 1e3
    assert f"{end:.3f} ms" in lines
    assert rows(section_a)["NVTX 'forward'"]  # the CPU range time stays, beside it
