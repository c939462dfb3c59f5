"""Timelines over many ranks (issue #26): the ranks of fixtures/ranks/ddp_straggler on one time axis, rows titled
"rank N", one step aligned across ranks; a report of a whole launch titles its processes "rank N"; the compile
workers' near-idle threads of a torch.compile profile share one row, the GPU rows first."""

from __future__ import annotations

import lzma
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from nsys_analytics.capabilities.visual import timeline as timeline_mod
from nsys_analytics.capabilities.visual.plot import data_width_px, draw
from nsys_analytics.capabilities.visual.rank_timeline import launch_ranks, rank_timelines, stacked
from nsys_analytics.capabilities.visual.timeline import build_timeline
from nsys_analytics.capabilities.visual.window import WindowRequest
from nsys_analytics.cli.main import cli
from nsys_analytics.data.engine import make_engine
from nsys_analytics.data.profile import Profile
from nsys_analytics.data.profile_set import ProfileSet

from .conftest import FIXTURES, RANKS, rank_files

STRAGGLER = RANKS / "ddp_straggler"


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def raw_step(path: Path, name: str) -> tuple[int, int, int]:
    """(start, end) of the NVTX range `name` and the session's wall-clock start, read with sqlite3 alone."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        start, end = con.execute("SELECT start, \"end\" FROM NVTX_EVENTS LEFT JOIN StringIds ON id = textId "
                                 "WHERE coalesce(text, value) = ? AND eventType = 59", (name,)).fetchone()
        (utc,) = con.execute("SELECT min(utcEpochNs) FROM TARGET_INFO_SESSION_START_TIME").fetchone()
    finally:
        con.close()
    return start, end, utc


@pytest.fixture(scope="module")
def step3():
    pset = ProfileSet([STRAGGLER], engine=make_engine(jobs=1))
    parts = rank_timelines(pset, WindowRequest(range_name="step_3"), width_px=data_width_px())
    return pset, parts, stacked(parts, "ddp_straggler step_3")


def test_ranks_share_one_axis_with_step_3_aligned_on_the_common_clock(step3):
    pset, parts, _ = step3
    raw = {m.rank: raw_step(Path(m.path), "step_3") for m in pset.members}
    utc0 = raw[min(raw)][2]
    spans = {r: (s + utc - utc0, e + utc - utc0) for r, (s, e, utc) in raw.items()}  # by hand: session offsets
    union = (min(s for s, _ in spans.values()), max(e for _, e in spans.values()))
    for part in parts:
        assert (part.timeline.window.start_ns, part.timeline.window.end_ns) == union
        drawn = [(b.start_ns, b.end_ns) for b in part.timeline.boxes
                 if b.label == "step_3" and part.timeline.lanes[b.lane].kind == "nvtx"]
        assert drawn == [spans[part.rank]]
    assert [p.rank for p in parts] == [0, 1]


def test_stacked_rows_are_titled_by_rank_and_the_png_has_their_size(step3, tmp_path):
    _, parts, t = step3
    titles = [lane.title for lane in t.lanes]
    n0 = len(parts[0].timeline.lanes)
    assert all(x.startswith("rank 0 · ") for x in titles[:n0]) and all(x.startswith("rank 1 · ") for x in titles[n0:])
    assert {lane.kind for lane in t.lanes[:n0]} >= {"gpu", "nvtx", "api"} and "pid " not in " ".join(titles)
    assert sum(b.count for b in t.boxes) == sum(b.count for p in parts for b in p.timeline.boxes)
    out = tmp_path / "ranks.png"
    run("timeline", STRAGGLER, "--range", "step_3", "-o", out)
    canvas = draw(t)
    with Image.open(out) as image:
        assert image.size == (canvas.width, canvas.height) == (1920, canvas.height)
    # every row (a lane's nesting levels, 32 px each) is in the picture's height
    assert canvas.height >= 32 * sum(lane.levels for lane in t.lanes)
    drawn = [s.text for s in canvas.shapes if getattr(s, "text", "").startswith("rank ")]
    assert any(x.startswith("rank 0 · GPU") for x in drawn) and any(x.startswith("rank 1 · GPU") for x in drawn)


def test_a_report_of_a_whole_launch_titles_its_processes_by_rank():
    (whole,) = rank_files("ddp_whole")
    pids, devices = launch_ranks(whole)
    assert sorted(pids.values()) == ["rank 0", "rank 1"] and sorted(devices.values()) == ["rank 0", "rank 1"]
    with Profile(whole) as p:
        t = build_timeline(p, WindowRequest(range_name="step_3"), pid_labels=pids, device_labels=devices)
    titles = [lane.title for lane in t.lanes]
    assert titles and all(x.startswith(("rank 0 · ", "rank 1 · ")) for x in titles)
    assert not any("pid " in x for x in titles)


@pytest.fixture(scope="module")
def compile_full(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("compile") / "compile_autotune_full.sqlite"
    with lzma.open(FIXTURES / "categories" / "compile_autotune_full.sqlite.xz") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 22)
    return target


def test_near_idle_threads_fold_into_one_row_and_gpu_rows_come_first(compile_full, monkeypatch, tmp_path):
    with Profile(compile_full) as p:
        folded = build_timeline(p, width_px=data_width_px())
        monkeypatch.setattr(timeline_mod, "QUIET_SHARE", 0.0)  # nothing is quiet: every thread its own row
        unfolded = build_timeline(p, width_px=data_width_px())
    monkeypatch.undo()
    kinds = [lane.kind for lane in folded.lanes]
    assert kinds[:3] == ["graph", "gpu", "gpu"] and kinds == sorted(kinds, key=["graph", "gpu", "nvtx", "api"].index)
    assert len(unfolded.lanes) == 79 and len(folded.lanes) == 6  # 74 compile-worker threads in one row
    assert folded.lanes[-1].title == "CUDA API · 74 other threads (each < 0.1% busy)"
    assert sum(b.count for b in folded.boxes) == sum(b.count for b in unfolded.boxes)  # nothing dropped
    api = [b for b in unfolded.boxes if unfolded.lanes[b.lane].kind == "api"]
    quiet = [lane for lane in unfolded.lanes if lane.kind == "api" and
             sum(b.busy_ns for b in api if b.lane == unfolded.lanes.index(lane)) < 0.001 * unfolded.window.duration_ns]
    assert len(quiet) == 74
    out = tmp_path / "compile.png"
    run("timeline", compile_full, "-o", out)
    with Image.open(out) as image:
        assert image.size == (1920, 505)  # was 1920 x 4009 with a row per thread
