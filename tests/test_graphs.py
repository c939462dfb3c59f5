"""CUDA graphs traced whole (`nsys profile --cuda-graph-trace=graph`, nsys' default): their GPU time is only in
CUPTI_ACTIVITY_KIND_GRAPH_TRACE. The nsys-equivalent reports stay equal to nsys and say what they leave out
(`--graphs` adds it); the reports that explain GPU time count the executions as `[CUDA graph N]`; `info` reports
them. Checked on a small profile written here, whose figures are worked out by hand."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES
from .test_diagnose_rules import GLOBAL_PID, PID

TID = GLOBAL_PID + PID
STRINGS = {1: "void gemm_kernel<float>(float *)", 2: "cudaLaunchKernel_v7000", 3: "cudaGraphLaunch_v10000"}
# One kernel of 1,000 ns; graph 7 executed twice (5,000 ns each), launched inside the NVTX range `replay`;
# the range `step_0` holds everything.
KERNELS = [(1_000, 2_000, 1)]              # start, end, correlation id
GRAPHS = [(3_000, 8_000, 2), (9_000, 14_000, 3)]
CALLS = [(900, 950, 1, 2), (2_900, 2_950, 2, 3), (8_900, 8_950, 3, 3)]  # start, end, correlation id, name id
RANGES = [(800, 15_000, "step_0"), (2_800, 9_500, "replay")]


@pytest.fixture(scope="module")
def graphs_whole(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("graphs") / "graphs_whole.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", STRINGS.items())
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT, "
                "streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, 1, 1)",
                    [(s, e, c, GLOBAL_PID) for s, e, c in KERNELS])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INT, end INT, deviceId INT, contextId INT, "
                "greenContextId INT, streamId INT, correlationId INT, globalPid INT, graphId INT, graphExecId INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (?, ?, 0, 1, NULL, 7, ?, ?, 7, 12)",
                    [(s, e, c, GLOBAL_PID) for s, e, c in GRAPHS])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, "
                "nameId INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?)",
                    [(s, e, TID, c, n) for s, e, c, n in CALLS])
    con.execute('CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT, '
                "globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)")
    con.executemany('INSERT INTO NVTX_EVENTS (start, "end", eventType, text, globalTid, domainId) '
                    "VALUES (?, ?, 59, ?, ?, 0)", [(s, e, t, TID) for s, e, t in RANGES])
    con.commit()
    con.close()
    return path


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def csv_rows(*args) -> list[dict]:
    return list(csv.DictReader(io.StringIO(run(*args, "--format", "csv"))))


def test_kernels_stay_nsys_and_name_what_they_leave_out(graphs_whole):
    rows = csv_rows("kernels", graphs_whole)
    assert [(r["Name"], r["Total Time (ns)"]) for r in rows] == [(STRINGS[1], "1000")]
    assert "2 whole CUDA graph executions (0.010 ms of GPU time) are not in this table" in run("kernels", graphs_whole)
    rows = csv_rows("kernels", graphs_whole, "--graphs")
    assert [(r["Name"], r["Total Time (ns)"], r["Instances"]) for r in rows] == [
        ("[CUDA graph 7]", "10000", "2"), (STRINGS[1], "1000", "1")]


def test_nvtx_gpu_stays_nsys_and_graphs_adds_the_replay(graphs_whole):
    rows = {r["Range"]: r for r in csv_rows("nvtx-gpu", graphs_whole)}
    assert set(rows) == {":step_0"}  # nsys: the range that replays the graph holds no GPU operation
    assert rows[":step_0"]["Total Proj Time (ns)"] == "1000"
    rows = {r["Range"]: r for r in csv_rows("nvtx-gpu", graphs_whole, "--graphs")}
    assert rows[":replay"]["Total Proj Time (ns)"] == str(14_000 - 3_000)
    assert rows[":step_0"]["Total Proj Time (ns)"] == str(14_000 - 1_000)


def test_breakdown_counts_graph_executions_as_cuda_graph(graphs_whole):
    doc = json.loads(run("breakdown", graphs_whole, "--format", "json"))
    cats = {r["category"]: r["time_ns"] for r in doc["sections"]["categories"]["rows"]}
    assert cats == {"matmul": 1_000, "cuda graph": 10_000}
    top = doc["sections"]["top"]["rows"]
    assert [(r["name"], r["time_ns"], r["instances"]) for r in top] == [("[CUDA graph 7]", 10_000, 2)]


def test_kernel_ranges_place_graph_executions(graphs_whole):
    rows = csv_rows("sql", graphs_whole, "SELECT kind, name, range, duration_ns FROM kernel_ranges "
                    "WHERE attribution = 'thread' AND range = ':replay' ORDER BY start_ns")
    assert [(r["kind"], r["name"], r["duration_ns"]) for r in rows] == [("graph", "[CUDA graph 7]", "5000")] * 2


def test_diagnose_sees_the_gpu_busy_during_graphs(graphs_whole):
    doc = json.loads(run("diagnose", graphs_whole, "--format", "json", "--window", "all", "--rule",
                         "gpu_utilization"))
    # busy 1,000 + 10,000 ns of the 13,000 ns span: 84.6 %, no finding (without graphs: 1 kernel, span 1,000 ns)
    assert doc["findings"] == []
    doc = json.loads(run("diagnose", graphs_whole, "--format", "json", "--window", "all", "--rule", "gpu_gaps",
                         "--gap", "0"))
    rows = doc["nsys_rules"]["gpu_gaps"]["rows"]
    assert sorted(r["duration_ns"] for r in rows) == [1_000, 1_000]  # 2,000-3,000 and 8,000-9,000


def test_info_reports_the_graphs(graphs_whole):
    doc = json.loads(run("info", graphs_whole, "--format", "json"))
    assert doc["graphs"]["executions"] == 2 and doc["graphs"]["gpu_time_ns"] == 10_000
    assert "CUDA graphs" in run("info", graphs_whole)


def test_nvtx_kernels_stay_nsys_and_graphs_adds_them(graphs_whole):
    rows = [(r["NVTX Range"], r["Kernel Name"], r["Total Time (ns)"]) for r in csv_rows("nvtx-kernels", graphs_whole)]
    assert rows == [(":step_0", STRINGS[1], "1000")]
    assert "not in this table" in run("nvtx-kernels", graphs_whole)
    rows = [(r["NVTX Range"], r["Kernel Name"], r["Total Time (ns)"], r["Kern Inst"])
            for r in csv_rows("nvtx-kernels", graphs_whole, "--graphs")]
    assert rows == [(":replay", "[CUDA graph 7]", "10000", "2"), (":step_0", "[CUDA graph 7]", "10000", "2"),
                    (":step_0", STRINGS[1], "1000", "1")]


# -- the graphs_whole fixture (nsys --cuda-graph-trace=graph), against sqlite3 queries written here -------------

WHOLE = PROFILES / "graphs_whole.sqlite"


def sqlite_rows(query: str) -> list[tuple]:
    con = sqlite3.connect(f"file:{WHOLE}?mode=ro", uri=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_fixture_kernels_graphs_rows_are_the_graph_trace():
    expected = {f"[CUDA graph {g}]": (str(t), str(n)) for g, t, n in sqlite_rows(
        'SELECT graphId, sum("end" - start), count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE GROUP BY graphId')}
    rows = csv_rows("kernels", WHOLE, "--graphs")
    ours = {r["Name"]: (r["Total Time (ns)"], r["Instances"]) for r in rows if r["Name"].startswith("[CUDA graph")}
    assert ours == expected and expected
    plain = csv_rows("kernels", WHOLE)
    assert [r for r in rows if not r["Name"].startswith("[CUDA graph")] and len(plain) == len(rows) - len(expected)


def test_fixture_replay_range_projected_with_graphs():
    """nsys has no `replay` row in whole-graph mode; with --graphs it spans the graph executions it launched."""
    replays = sqlite_rows("SELECT e.start, e.end, e.globalTid FROM NVTX_EVENTS e LEFT JOIN StringIds s "
                          "ON s.id = e.textId WHERE coalesce(e.text, s.value) = 'replay'")
    ops = sqlite_rows('SELECT r.start, r."end", r.globalTid, o.start, o."end" FROM ('
                      'SELECT correlationId, start, "end", globalPid FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE UNION ALL '
                      'SELECT correlationId, start, "end", globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL) o '
                      "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = o.correlationId")
    total = 0
    for start, end, tid in replays:
        mine = [(s, e) for cs, ce, ctid, s, e in ops if ctid == tid and start <= cs and ce <= end]
        total += max(e for _, e in mine) - min(s for s, _ in mine)
    assert ":replay" not in {r["Range"] for r in csv_rows("nvtx-gpu", WHOLE)}
    rows = {r["Range"]: r for r in csv_rows("nvtx-gpu", WHOLE, "--graphs")}
    assert rows[":replay"]["Total Proj Time (ns)"] == str(total) and total > 0
