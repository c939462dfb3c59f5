"""`timeline`: the window query returns the right boxes (hand-checked, and against a brute-force reference read
straight from the SQLite file), density bands conserve time, and the CLI writes pictures and refuses bad input."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.capabilities.categories import load_rules
from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.visual.data import MIN_BOX_PX
from nsys_analytics.capabilities.visual.timeline import build_timeline
from nsys_analytics.capabilities.visual.window import TimeWindow, WindowRequest

from .conftest import FIXTURE_NAMES, PROFILES

TRAIN = PROFILES / "gpt_train.sqlite"
SDPA = PROFILES / "gpt_sdpa_train.sqlite"


def gpu_ops(path, start: int, end: int) -> list[tuple]:
    """(stream, clipped start, clipped end) of every kernel, memcpy and memset overlapping [start, end), read with
    Python's sqlite3: an independent reference."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    ops = []
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if table in tables:
            ops += [(s, max(a, start), min(b, end)) for s, a, b in con.execute(
                f'SELECT streamId, start, "end" FROM {table} WHERE start < ? AND "end" > ?', (end, start))]
    con.close()
    return ops


def test_two_overlapping_kernels_are_two_boxes_hand_checked():
    # gpt_sdpa_train, stream 7: nvjet_sm90_tst_128x64_64x8_1x2_h_bz_splitK_NNT runs [5747233393, 5747246417) and
    # splitKreduce_kernel starts 160 ns before it ends (programmatic dependent launch), [5747246257, 5747248657).
    window = TimeWindow(5747233393, 5747248657, "test")
    with nsys_analytics.open(SDPA) as p:
        t = build_timeline(p, window, width_px=100, api=False, nvtx=False)
    assert t.ns_per_px == 153  # ceil(15264 / 100)
    gpu = [b for b in t.boxes if t.lanes[b.lane].kind == "gpu"]
    assert [(b.shape, b.start_ns, b.end_ns, b.count) for b in gpu] == [
        ("box", 5747233393, 5747246417, 1), ("box", 5747246257, 5747248657, 1)]
    assert gpu[0].label == "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_splitK_NNT" and gpu[0].color_key == "matmul"
    assert gpu[1].label == "splitKreduce_kernel"
    assert t.lanes[gpu[0].lane].title == "GPU 0 · stream 7"


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_boxes_and_bands_match_a_brute_force_reference(name):
    path = PROFILES / f"{name}.sqlite"
    with nsys_analytics.open(path) as p:
        t = build_timeline(p, WindowRequest(), width_px=700, api=False, nvtx=False)
    start, end, px = t.window.start_ns, t.window.end_ns, t.ns_per_px
    wide, bands = set(), defaultdict(lambda: [0, 0])
    for stream, s, e in gpu_ops(path, start, end):
        if e - s >= MIN_BOX_PX * px:
            wide.add((stream, s, e))
        else:
            band = bands[(stream, (s - start) // px)]
            band[0] += e - s
            band[1] += 1
    got_boxes = {(t.lanes[b.lane].key[1], b.start_ns, b.end_ns) for b in t.boxes
                 if t.lanes[b.lane].kind == "gpu" and b.shape == "box"}
    got_bands = {(t.lanes[b.lane].key[1], (b.start_ns - start) // px): [b.busy_ns, b.count] for b in t.boxes
                 if t.lanes[b.lane].kind == "gpu" and b.shape == "band"}
    assert got_boxes == wide
    assert got_bands == dict(bands)


def test_density_bands_conserve_gpu_time_in_a_window():
    with nsys_analytics.open(TRAIN) as p:
        t = build_timeline(p, WindowRequest(range_name="step_1"), width_px=300)
    reference = sum(e - s for _, s, e in gpu_ops(TRAIN, t.window.start_ns, t.window.end_ns))
    assert reference > 0
    assert t.busy_ns("gpu") == reference
    assert sum(b.count for b in t.boxes if t.lanes[b.lane].kind == "gpu") == len(
        gpu_ops(TRAIN, t.window.start_ns, t.window.end_ns))
    assert any(b.shape == "band" for b in t.boxes) and any(b.shape == "box" for b in t.boxes)


def test_nvtx_rows_nest_and_the_range_window_is_the_instance():
    with nsys_analytics.open(TRAIN) as p:
        t = build_timeline(p, WindowRequest(range_name="step_1"), width_px=800)
        # the window is step_1's own span, read independently from the range table
        [(s, e)] = p.sql("SELECT start_ns, end_ns FROM nvtx_events WHERE name = 'step_1'").rows
    assert (t.window.start_ns, t.window.end_ns) == (s, e)
    nvtx = {(b.label, b.level) for b in t.boxes if t.lanes[b.lane].kind == "nvtx" and b.shape == "box"}
    assert ("step_1", 0) in nvtx
    assert {("forward", 1), ("backward", 1), ("optimizer_step", 1)} <= nvtx
    kinds = [lane.kind for lane in t.lanes]
    assert kinds == sorted(kinds, key=["graph", "gpu", "nvtx", "api"].index)  # the GPU rows first (issue #26)


def test_range_instance_picks_one_and_categories_follow_the_rules():
    with nsys_analytics.open(TRAIN) as p:
        first = build_timeline(p, WindowRequest(range_name="forward", instance=1), width_px=400)
        whole = build_timeline(p, WindowRequest(range_name="forward"), width_px=400)
    assert first.window.start_ns == whole.window.start_ns and first.window.end_ns < whole.window.end_ns
    assert set(load_rules().category_names) >= {b.color_key for b in first.boxes
                                                if first.lanes[b.lane].kind == "gpu" and b.color_key[:3] != "mem"}


def test_graph_launches_get_their_own_row():
    with nsys_analytics.open(PROFILES / "copies_streams_graph.sqlite") as p:
        t = build_timeline(p, WindowRequest(), width_px=600)
    graphs = [b for b in t.boxes if t.lanes[b.lane].kind == "graph"]
    # 5 cudaGraphLaunch calls, each running a graph of 4 kernels and 1 memset on stream 7 (sqlite3: kernels and
    # memsets with a graphNodeId, grouped by correlationId 2952, 2979, 3006, 3033, 3060)
    assert len(graphs) == 5 and all(b.count == 5 for b in graphs)
    assert [b.label for b in graphs] == [f"graph launch {c}" for c in (2952, 2979, 3006, 3033, 3060)]
    assert {t.lanes[b.lane].title for b in graphs} == {"GPU 0 · stream 7 · graphs"}


def test_graphs_traced_whole_are_their_executions():
    path = PROFILES / "graphs_whole.sqlite"
    with nsys_analytics.open(path) as p:
        t = build_timeline(p, WindowRequest(), width_px=600)
    graphs = sorted((b.start_ns, b.end_ns) for b in t.boxes if t.lanes[b.lane].kind == "graph")
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    expected = con.execute('SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE ORDER BY start').fetchall()
    assert graphs == expected and len(expected) == 16  # sqlite3: 16 rows, one per cudaGraphLaunch call


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_cli_writes_png_and_svg(tmp_path, suffix, magic):
    out = tmp_path / f"t{suffix}"
    result = CliRunner().invoke(cli, ["timeline", str(TRAIN), "--range", "step_1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:5].startswith(magic)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left behind


@pytest.mark.parametrize("args, message", [
    (["--range", "no_such_range"], "no NVTX range is named 'no_such_range'"),
    (["--instance", "2"], "give --range too"),
    (["--range", "forward", "--instance", "99"], "has 3 instance(s)"),  # sqlite3: 3 ranges named forward
    (["--start", "2s", "--end", "1s"], "is not after"),
    (["--range", "forward", "--start", "1s"], "not both"),
])
def test_cli_bad_windows_exit_2(tmp_path, args, message):
    result = CliRunner().invoke(cli, ["timeline", str(TRAIN), *args, "-o", str(tmp_path / "t.png")])
    assert result.exit_code == 2 and message in result.output, result.output


def test_cli_never_writes_onto_an_input_or_a_wrong_suffix(tmp_path):
    before = TRAIN.read_bytes()
    result = CliRunner().invoke(cli, ["timeline", str(TRAIN), "-o", str(TRAIN)])
    assert result.exit_code == 2 and "input profile" in result.output
    result = CliRunner().invoke(cli, ["timeline", str(TRAIN), "-o", str(tmp_path / "t.pdf")])
    assert result.exit_code == 2 and ".png or .svg" in result.output
    assert TRAIN.read_bytes() == before


def test_a_window_outside_the_profile_is_refused_not_drawn_empty(tmp_path):
    """`--start 100s --end 101s` on a 5.3 s capture wrote an empty picture (exit 0) where `export` refuses the
    window; now the same usage error (exit 2), naming the span, and no file."""
    out = tmp_path / "far.png"
    result = CliRunner().invoke(cli, ["timeline", str(PROFILES / "gpt_train.sqlite"), "--start", "100s", "--end",
                                      "101s", "-o", str(out)])
    assert result.exit_code == 2 and "holds nothing of the profile" in result.output and not out.exists()
