"""The CUDA-graph, torch.compile and DDP fixtures (fixtures/README.md, "Graphs, compile and DDP"):
each rank export against nsys' own CSVs of that file, and what each fixture is said to show, read
straight from the SQLite tables."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from . import test_kernels_oracle as kernels_oracle
from . import test_nvtx_oracle as nvtx_oracle
from .conftest import PROFILES, RANK_RUNS, rank_files

# The runs whose every file has its own `nsys stats` oracle (fixtures/oracle/STEM/); the stories runs (FSDP2/DDP
# with a designed straggler) are checked against the recipes over their ranks instead (tests/test_ranks_recipes.py).
STATS_RUNS = ["ddp_balanced", "ddp_straggler", "ddp_straggler_json", "ddp_whole", "ddp_whole_json"]
STORY_RUNS = ["ddp4_backward", "ddp4_balanced", "ddp4_data", "fsdp2_aa_1", "fsdp2_aa_2", "fsdp2_aa_3",
              "fsdp2_backward", "fsdp2_balanced", "fsdp2_forward", "fsdp2_small_backward", "fsdp4_backward",
              "fsdp4_balanced", "fsdp4_data"]
RANK_FILES = [f for run in STATS_RUNS for f in rank_files(run)]
IDS = [f.stem for f in RANK_FILES]


def rows(path: Path, sql: str, *args) -> list[tuple]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def file_rank(path: Path) -> int:
    return int(path.stem.rsplit(".", 1)[1])


# -- every rank export equals nsys stats, like the single-process fixtures ------------------------------

@pytest.mark.parametrize("report,options", kernels_oracle.VARIANTS, ids=[v[0] for v in kernels_oracle.VARIANTS])
@pytest.mark.parametrize("profile", RANK_FILES, ids=IDS)
def test_rank_export_kernels_match_nsys(profile, report, options):
    kernels_oracle.assert_same_cells(profile, report, options)


def nvtx_cases():
    for profile in RANK_FILES:
        for report, command, key in nvtx_oracle.VARIANTS:
            yield pytest.param(profile, report, command, key, id=f"{profile.stem}-{report}")


@pytest.mark.parametrize("profile,report,command,key", list(nvtx_cases()))
def test_rank_export_nvtx_matches_nsys(profile, report, command, key):
    nvtx_oracle.assert_same_cells(profile, report, command, key)


# -- what the fixtures show ---------------------------------------------------------------------------

def test_runs_and_files():
    assert RANK_RUNS == sorted(STATS_RUNS + STORY_RUNS)
    for run in STORY_RUNS:
        assert [file_rank(f) for f in rank_files(run)] == list(range(4 if "4_" in run else 2))
    for run in ("ddp_balanced", "ddp_straggler", "ddp_straggler_json"):
        assert [file_rank(f) for f in rank_files(run)] == [0, 1]
    assert [f.stem for f in rank_files("ddp_whole")] == ["ddp_whole"]


@pytest.mark.parametrize("run", ["ddp_balanced", "ddp_straggler", "ddp_straggler_json"])
def test_rank_files_carry_their_rank_in_the_environment(run):
    for f in rank_files(run):
        env = dict(re.match(r'(\w+)="(.*)"', v).groups() for (v,) in rows(
            f, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:ENVIRONMENT_VARIABLE'"))
        assert (env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"]) == (str(file_rank(f)), str(file_rank(f)), "2")
        assert env["NCCL_NVLS_ENABLE"] == "0"


def nccl_init_payloads(path: Path) -> list[tuple[int, dict]]:
    """(pid, payload) of each ncclCommInitRankConfig range, from the JSON exports' NVTX_EVENTS.jsonText."""
    return [(pid, json.loads(text)) for pid, text in rows(
        path, "SELECT e.globalTid >> 24 & 16777215, e.jsonText FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
              "WHERE s.value = 'ncclCommInitRankConfig' ORDER BY e.start")]


def test_json_exports_hold_nccl_payloads_with_the_rank():
    for f in rank_files("ddp_straggler_json"):
        [(_, payload)] = nccl_init_payloads(f)
        assert (payload["Rank"], payload["No. of ranks"], payload["CUDA device"]) == (file_rank(f), 2, file_rank(f))
    [whole] = rank_files("ddp_whole_json")
    payloads = nccl_init_payloads(whole)
    assert sorted(p["Rank"] for _, p in payloads) == [0, 1]
    assert len({pid for pid, _ in payloads}) == 2  # one process per rank in the one report
    # each rank's kernels run on the GPU its payload names
    for pid, p in payloads:
        assert rows(whole, "SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL "
                           "WHERE globalPid >> 24 & 16777215 = ?", pid) == [(p["CUDA device"],)]
    # the default exports carry no payloads
    for f in rank_files("ddp_straggler") + rank_files("ddp_whole"):
        assert rows(f, "SELECT count(jsonText) FROM NVTX_EVENTS") == [(0,)]


@pytest.mark.parametrize("run", ["ddp_straggler", "ddp_whole"])
def test_json_export_is_the_default_export_plus_payloads(run):
    for plain, with_json in zip(rank_files(run), rank_files(f"{run}_json"), strict=True):
        tables = [t for (t,) in rows(plain, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        assert tables == [t for (t,) in rows(with_json, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for t in tables:
            assert rows(plain, f'SELECT count(*) FROM "{t}"') == rows(with_json, f'SELECT count(*) FROM "{t}"'), t


def data_ms(path: Path) -> list[float]:
    return [d / 1e6 for (d,) in rows(path, "SELECT e.end - e.start FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
                                           "WHERE s.value = 'data' ORDER BY e.start")]


def nccl_kernel_ns(path: Path) -> int:
    return rows(path, "SELECT sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
                      "WHERE s.value LIKE 'ncclDevKernel_AllReduce%'")[0][0]


def test_straggler_stalls_in_data_and_the_other_rank_waits_in_nccl():
    r0, r1 = rank_files("ddp_straggler")
    assert len(data_ms(r1)) == 6 and min(data_ms(r1)) >= 30.0
    assert max(data_ms(r0)) < 5.0
    # rank 0's all-reduce kernels wait for rank 1: about 30 ms a step (6 measured + 2 warm-up steps)
    assert nccl_kernel_ns(r0) - nccl_kernel_ns(r1) > 6 * 25e6
    b0, b1 = rank_files("ddp_balanced")
    assert max(data_ms(b0) + data_ms(b1)) < 5.0
    assert abs(nccl_kernel_ns(b0) - nccl_kernel_ns(b1)) < 25e6


def test_graphs_whole_has_graph_launches_not_their_kernels():
    whole, node = PROFILES / "graphs_whole.sqlite", PROFILES / "graphs_node.sqlite"
    # 4 steps x (3 replays of the main graph + 1 of the small one)
    assert rows(whole, "SELECT graphId, count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE GROUP BY 1 ORDER BY 1") == [(1, 12), (4, 4)]
    assert rows(whole, "SELECT count(graphNodeId) FROM CUPTI_ACTIVITY_KIND_KERNEL") == [(0,)]
    assert "CUPTI_ACTIVITY_KIND_GRAPH_TRACE" not in {t for (t,) in rows(node, "SELECT name FROM sqlite_master")}
    # node mode: 12 x 6 kernels of the main graph + 4 x 2 of the small one, each with its graph node
    assert rows(node, "SELECT count(graphNodeId), count(DISTINCT graphNodeId) FROM CUPTI_ACTIVITY_KIND_KERNEL") == [(80, 8)]
    # the eager kernels are the same in both: all kernels of whole = those of node without a graph node
    count_eager = "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE graphNodeId IS NULL"
    assert rows(whole, count_eager) == rows(node, count_eager)


def test_compile_autotune_has_a_template_of_each_gemm_kind():
    names = {n for (n,) in rows(PROFILES / "compile_autotune.sqlite",
                                "SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName")}
    templates = {n for n in names if n.startswith("triton_tem_")}
    for kind in ("_mm_", "_bmm_", "_addmm_", "_convolution_"):
        assert any(kind in n for n in templates), (kind, templates)
    assert any(n.startswith(("triton_per_", "triton_red_")) for n in names)
    assert any(n.startswith("triton_poi_") for n in names)
