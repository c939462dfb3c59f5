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
    # the window says once that it is the ranks' union ("2 ranks: NVTX :step_3, 2 ranks" said the count twice)
    assert parts[0].timeline.window.source.endswith(", its union over the ranks")


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
    assert "time (ms, rank 0's clock)" in [getattr(s, "text", "") for s in canvas.shapes]


def test_a_rank_without_the_range_is_named_in_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["timeline", str(STRAGGLER), "--range", "nope", "-o", str(tmp_path / "x.png")])
    assert result.exit_code == 2 and "rank 0 (ddp_straggler.0.sqlite): no NVTX range is named 'nope'" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "x.png").exists()


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


# -- the page of a job ------------------------------------------------------------------------------------------

def js(browser, expression: str):
    return browser.evaluate(f"(function () {{ {expression} }})()")


@pytest.fixture(scope="module")
def job_page(tmp_path_factory):
    from . import chromium

    if chromium.find() is None:
        pytest.skip("no Chromium on PATH: `apt-get install chromium` (.ci/run installs it)")
    out = tmp_path_factory.mktemp("job") / "job.html"
    run("html", STRAGGLER, "-o", out)
    with chromium.Browser(width=1280, height=900) as browser:
        browser.load(out)
        yield browser, out


def test_job_page_loads_clean_and_shows_the_verdict_first(job_page):
    import json

    browser, out = job_page
    assert browser.console_errors() == []
    assert {u.split(",")[0] for u in browser.requested_urls()} <= {out.as_uri(), "data:image/png;base64"}
    assert js(browser, "return Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    order = js(browser, "return Array.from(document.querySelectorAll('section[data-section]')).map(s => s.id)")
    assert order == ["verdict", "nccl", "kernels", "categories", "timelines"]
    ranks = json.loads(run("ranks", STRAGGLER, "--format", "json"))
    verdict = js(browser, "return Array.from(document.querySelectorAll('#verdict [data-test=verdict]'))"
                          ".map(e => e.textContent.trim())")
    assert verdict == [f"{f['severity']} {f['message']}" for f in ranks["findings"]]
    assert "rank 1 is the straggler" in verdict[0]
    summary = js(browser, """return Array.from(document.querySelectorAll(
        'table[data-table="ranks-summary"] tbody tr')).map(r => [Number(r.querySelector('td[data-col="rank"]').dataset.v),
        Number(r.querySelector('td[data-col="wait_ms"]').dataset.v)]);""")
    assert summary == [[r["rank"], r["wait_ms"]] for r in ranks["summary"]]


def test_job_page_has_per_rank_tables(job_page):
    browser, _ = job_page
    kernel_ranks = js(browser, """return Array.from(new Set(Array.from(document.querySelectorAll(
        'table[data-table="kernels-ranks"] td[data-col="rank"]')).map(c => c.dataset.v)));""")
    assert kernel_ranks == ["0", "1"]
    heads = js(browser, "return Array.from(document.querySelectorAll("
                        "'table[data-table=\"breakdown-categories\"] th')).map(h => h.textContent)")
    assert heads[:5] == ["Category", "rank 0 (ns)", "rank 0 (%)", "rank 1 (ns)", "rank 1 (%)"]
    ops = js(browser, "return Array.from(document.querySelectorAll("
                      "'table[data-table=\"nccl-combined\"] td[data-col=\"name\"]')).map(c => c.textContent)")
    assert "AllReduce" in ops


def test_job_page_has_one_aligned_timeline_per_rank(job_page):
    browser, _ = job_page
    figures = js(browser, """return Array.from(document.querySelectorAll('#timelines figure')).map(f =>
        [f.dataset.rank, f.dataset.startNs, f.dataset.endNs, f.querySelector('img').naturalWidth]);""")
    pset = ProfileSet([STRAGGLER], engine=make_engine(jobs=1))
    raw = {m.rank: raw_step(Path(m.path), "step_3") for m in pset.members}  # step_3: the middle of steps 0-5
    utc0 = raw[0][2]
    start = min(s + utc - utc0 for s, _, utc in raw.values())
    end = max(e + utc - utc0 for _, e, utc in raw.values())
    assert [f[:3] for f in figures] == [["0", str(start), str(end)], ["1", str(start), str(end)]]
    assert figures[0][3] == figures[1][3] > 1000  # the same width: one time axis


def test_job_page_calls_profiles_that_name_no_rank_profiles_not_one_job(tmp_path):
    """Two unrelated profiles (a training and a forward-only run: no rank in their environment or names) are
    numbered in the order given; the page no longer titles them "2 ranks of one job". Files of one job keep it."""
    import re

    pages = {}
    for key, inputs in (("unrelated", [FIXTURES / "profiles" / "gpt_train.sqlite",
                                       FIXTURES / "profiles" / "gpt_forward.sqlite"]), ("job", [STRAGGLER])):
        out = tmp_path / f"{key}.html"
        run("html", *inputs, "-o", out)
        text = out.read_text()
        pages[key] = (re.search(r"<h1>nsys-analytics: (\d+ \w+) ", text).group(1),
                      re.search(r'<p class="sub">([^;]*);', text).group(1))
    assert pages["unrelated"] == ("2 profiles", "2 profiles taken as ranks")
    assert pages["job"] == ("2 ranks", "2 ranks of one job")


def test_html_tables_never_show_two_kernels_under_one_name(tmp_path):
    """gpt_forward's top kernels held two `elementwise_kernel<128, 2, … nocast<…>(…)::[lambda(int)#1]>(…)`."""
    from nsys_analytics.output.render import shorten_name

    from . import chromium
    from .conftest import PROFILES

    if chromium.find() is None:
        pytest.skip("no Chromium on PATH: `apt-get install chromium` (.ci/run installs it)")
    out = tmp_path / "forward.html"
    run("html", PROFILES / "gpt_forward.sqlite", "-o", out)
    with chromium.Browser(width=1280, height=900) as browser:
        browser.load(out)
        cells = js(browser, """return Array.from(document.querySelectorAll(
            'table[data-table="top-kernels"] td[data-col="name"]')).map(c => [c.textContent, c.title || c.textContent]);""")
    full = [f for _, f in cells]
    assert len({shorten_name(f, 110) for f in full}) < len(set(full))  # the old rule made a pair look the same
    shown: dict[str, set] = {}
    for text, name in cells:
        shown.setdefault(text, set()).add(name)
    assert len(cells) == 15 and all(len(v) == 1 for v in shown.values())


def test_diff_plot_labels_are_unique_and_inside_the_figure(monkeypatch, tmp_path):
    from nsys_analytics.output import plotstyle

    from .conftest import PROFILES

    figures = []
    real_save = plotstyle.save
    monkeypatch.setattr(plotstyle, "save", lambda fig, path, *a, **k: (figures.append(fig), fig.canvas.draw(),
                                                                       _boxes(fig), real_save(fig, path, *a, **k))[-1])
    run("diff", PROFILES / "gpt_forward.sqlite", PROFILES / "gpt_train.sqlite", "--plot", tmp_path / "d.png")
    labels, left = figures[0].boxes
    assert len(labels) == 15 and len(set(labels)) == 15
    assert left >= 0  # no label cut at the figure's left edge


def _boxes(fig):
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    ticks = ax.get_yticklabels()
    fig.boxes = ([t.get_text() for t in ticks], min(t.get_window_extent(renderer).x0 for t in ticks))
