"""`serve` (issue #27): the JSON API over real HTTP, its window answers against a brute-force reference read from the
export with sqlite3, its refusals, hostile names, and the page in a real headless Chromium.

One server for the module: the two ranks of fixtures/ranks/ddp_balanced (p0, p1) and, with --vs, a copy of
gpt_forward whose heaviest kernel and one NVTX range carry hostile names (p2)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.capabilities.categories import load_rules
from nsys_analytics.capabilities.serve.serve_cmd import close_session, open_session
from nsys_analytics.capabilities.serve.server import Server
from nsys_analytics.capabilities.serve.timeline_window import MAX_EVENTS
from nsys_analytics.cli.main import cli

from . import chromium
from .conftest import FIXTURES, PROFILES, RANKS

RUN = RANKS / "ddp_balanced"
RANK0 = RUN / "ddp_balanced.0.sqlite"
KERNEL_NAME = '<img src=x onerror="window.__pwned=1">\x1b]0;owned\x07gemm\u202e'
RANGE_NAME = "<script>window.__pwned=2</script>\rrange"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("serve-hostile") / "hostile.sqlite"
    shutil.copy(PROFILES / "gpt_forward.sqlite", path)
    with sqlite3.connect(path) as con:
        (kernel,) = con.execute("SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1 "
                                "ORDER BY sum(end - start) DESC LIMIT 1").fetchone()
        (text,) = con.execute("SELECT textId FROM NVTX_EVENTS WHERE textId IS NOT NULL LIMIT 1").fetchone()
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", (KERNEL_NAME, kernel))
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", (RANGE_NAME, text))
    con.close()
    return path


@pytest.fixture(scope="module")
def base(hostile):
    session = open_session([str(RUN)], [str(hostile)])
    server = Server(session, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.url
    server.shutdown()
    server.server_close()
    close_session(session)


def get(base: str, path: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(base + path.lstrip("/"), timeout=60) as r:
            return r.status, r.headers["Content-Type"], r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read()


def get_json(base: str, path: str):
    status, ctype, body = get(base, path)
    assert status == 200, body
    assert ctype.startswith("application/json")
    return json.loads(body)


def ids(base: str) -> dict[str, str]:
    return {p["name"]: p["id"] for p in get_json(base, "/api/meta")["profiles"]}


# ------------------------------------------------------------------ the window answers against a reference
def reference_intervals(path: Path) -> dict[tuple, list[tuple]]:
    """(pid, device, stream) -> [(start, end, category id)] of kernels, copies and memsets, read with sqlite3."""
    rules = load_rules()
    cats = rules.category_names
    con = sqlite3.connect(path)
    names = dict(con.execute("SELECT id, value FROM StringIds"))
    out = defaultdict(list)
    for table, cat in (("KERNEL", None), ("MEMCPY", len(cats)), ("MEMSET", len(cats) + 1)):
        name = "demangledName" if cat is None else "NULL"
        rows = con.execute(f'SELECT globalPid, deviceId, streamId, start, "end", {name} '
                           f"FROM CUPTI_ACTIVITY_KIND_{table}")
        for gpid, device, stream, s, e, n in rows:
            c = cats.index(rules.classify(names.get(n)).category) if cat is None else cat
            out[((gpid >> 24) & 0xFFFFFF, device or 0, stream)].append((s, e, c))
    con.close()
    return out


def reference_window(intervals: list[tuple], t0: int, t1: int, npp: int):
    """Per pixel column: the summed overlap and the category with most of it (ties: the lower id); and the
    intervals that cross a column edge. One Python step per interval and column."""
    per_cat = defaultdict(lambda: defaultdict(int))
    wide = set()
    for s, e, c in intervals:
        if not (s < t1 and e > t0):
            continue
        cs, ce = max(s, t0), min(e, t1)
        first, last = (cs - t0) // npp, (ce - 1 - t0) // npp
        if last > first:
            wide.add((s, e))
        for col in range(first, last + 1):
            per_cat[col][c] += min(ce, t0 + (col + 1) * npp) - max(cs, t0 + col * npp)
    columns = {col: (sum(v.values()), min(v, key=lambda k: (-v[k], k))) for col, v in per_cat.items()
               if sum(v.values()) > 0}
    return columns, wide


@pytest.fixture(scope="module")
def rank0(base):
    pid = ids(base)[RANK0.name]
    return pid, get_json(base, f"/api/lanes?p={pid}"), reference_intervals(RANK0)


def windows(lanes: dict, intervals: dict) -> list[tuple[int, int, int]]:
    """The whole span, a wider one, and two zooms around the median kernel (column edges at odd places)."""
    t0, t1 = lanes["start_ns"], lanes["end_ns"]
    starts = sorted(s for rows in intervals.values() for s, _e, _c in rows)
    mid = starts[len(starts) // 2] - 1_000_003
    return [(t0, t1, 1000), (t0 - 12345, t1 + 6789, 733), (mid - 40_000_017, mid + 60_000_000, 97),
            (mid, mid + 2_000_000, 640), (mid + 1_000_000, mid + 1_040_000, 97)]


@pytest.mark.parametrize("which", range(5))
def test_window_columns_equal_a_brute_force_reference(base, rank0, which):
    pid, lanes, intervals = rank0
    t0, t1, px = windows(lanes, intervals)[which]
    answer = get_json(base, f"/api/timeline?p={pid}&t0={t0}&t1={t1}&px={px}")
    npp = answer["ns_per_px"]
    # wide windows come from the coarse grid: rounded out to whole buckets, columns at most a quarter wider
    assert answer["coarse"] == (which < 3)
    assert answer["t0"] <= t0 and answer["t1"] >= t1 and -(-(t1 - t0) // px) <= npp <= 1.25 * (t1 - t0) / px + 1
    t0, t1 = answer["t0"], answer["t1"]
    gpu = [lane for lane in lanes["lanes"] if lane["kind"] == "gpu"]
    assert {(g["pid"], g["device"], g["stream"]) for g in gpu} == set(intervals)
    checked = 0
    for lane in gpu:
        expected, wide = reference_window(intervals[(lane["pid"], lane["device"], lane["stream"])], t0, t1, npp)
        got = {col: (busy, cat) for col, busy, cat in answer["columns"].get(str(lane["lane"]), []) if busy > 0}
        assert got == expected
        events = {(s, e) for ln, s, e, *_ in answer["events"] if ln == lane["lane"]}
        assert not answer["events_truncated"] and events == wide
        checked += len(expected)
    assert checked > 0


def test_a_zoomed_window_lists_wide_kernels_by_name(base, rank0):
    pid, lanes, intervals = rank0
    t0, t1, _ = windows(lanes, intervals)[3]
    answer = get_json(base, f"/api/timeline?p={pid}&t0={t0}&t1={t1}&px=2000")
    kernels = [e for e in answer["events"] if e[5] == 0]
    assert kernels and all(isinstance(e[6], str) and e[6] for e in kernels)


def test_payload_is_bounded_by_pixels_not_kernels(base, rank0):
    pid, lanes, _ = rank0
    t0, t1 = lanes["start_ns"], lanes["end_ns"]
    for px in (200, 4000):
        status, _, body = get(base, f"/api/timeline?p={pid}&t0={t0}&t1={t1}&px={px}")
        answer = json.loads(body)
        assert status == 200 and len(body) < 2_000_000
        assert all(len(cols) <= px for cols in answer["columns"].values())
        assert len(answer["events"]) <= MAX_EVENTS


# ------------------------------------------------------------------ tables: the commands' own numbers
def cli_json(*args) -> object:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_range_kernels_equal_nvtx_kernels(base):
    pid = ids(base)[RANK0.name]
    cli_rows = cli_json("nvtx-kernels", RANK0, "--attribution", "process", "--format", "json")
    name = next(r["range"] for r in cli_rows if r["range"])
    doc = get_json(base, f"/api/table?view=nvtx-kernels&p={pid}&range={urllib.parse.quote(name)}&attribution=process")
    rows = doc["tables"]["nvtx_kernels"]["rows"]
    assert rows and rows == [r for r in cli_rows if r["range"] == name]


def test_kernels_csv_is_the_writers_csv(base, tmp_path):
    pid = ids(base)[RANK0.name]
    status, ctype, body = get(base, f"/api/table?view=kernels&p={pid}&format=csv")
    assert status == 200 and ctype.startswith("text/csv")
    out = tmp_path / "k.csv"
    CliRunner().invoke(cli, ["kernels", str(RANK0), "--format", "csv", "-o", str(out)])
    assert body.decode() == out.read_text()


def test_ranks_and_diff_pages(base):
    ranks = get_json(base, "/api/table?view=ranks")
    assert len(ranks["tables"]["summary"]["rows"]) == 2
    diff = get_json(base, "/api/table?view=diff")
    assert "kernels" in diff["tables"]


def test_serving_a_report_of_a_whole_launch_alone_names_by_rank(capsys):
    """ddp_whole served as one profile: the start-up says on stderr that it holds 2 processes and names
    `serve --by-rank`, and its ranks page says the same; with --by-rank it is served as its 2 ranks."""
    from nsys_analytics.capabilities.serve.pages import ranks as ranks_page
    from nsys_analytics.core.errors import UsageError

    from .conftest import rank_files

    [whole] = rank_files("ddp_whole")
    session = open_session([str(whole)])
    try:
        assert "This report holds 2 processes" in capsys.readouterr().err
        with pytest.raises(UsageError, match="--by-rank for one report of a whole launch"):
            ranks_page(session, {})
    finally:
        close_session(session)
    session = open_session([str(whole)], by_rank=True)
    try:
        assert "This report holds" not in capsys.readouterr().err
        assert len(ranks_page(session, {}).report.summary) == 2  # a row per rank
    finally:
        close_session(session)


def test_the_diff_page_reads_a_report_of_a_whole_launch_as_its_ranks():
    """ddp_whole (one report of a 2-rank launch of ddp_straggler's workload) served against ddp_straggler's rank
    files: the page's verdict is `diff`'s, no change (read as one rank, it was a +100 % change of 1 vs 2 ranks)."""
    from nsys_analytics.capabilities.serve.pages import diff as diff_page

    from .conftest import rank_files

    [whole], straggler = rank_files("ddp_whole"), rank_files("ddp_straggler")
    cli_diff = CliRunner().invoke(cli, ["diff", str(whole), str(straggler[0].parent), "--format", "json"])
    assert cli_diff.exit_code == 0, cli_diff.output
    session = open_session([str(whole)], [str(f) for f in straggler])
    try:
        page = diff_page(session, {}).report
    finally:
        close_session(session)
    assert page.verdict == json.loads(cli_diff.output)["verdict"]
    assert page.verdict.startswith("No change beyond run-to-run noise"), page.verdict


# ------------------------------------------------------------------ refusals and names
BAD = [
    ("/api/table?view=kernels&p=p9", 404), ("/api/table?view=kernels&p=..%2F..%2Fetc%2Fpasswd", 404),
    ("/api/table?view=kernels&p=" + urllib.parse.quote(str(RANK0)), 404), ("/api/table?view=nope&p=p0", 404),
    ("/api/table?view=kernels&p=p0&format=xml", 400), ("/api/table?view=kernels&p=p0&p=p1", 400),
    ("/api/table?view=kernels&p=p0&format=csv&table=nope", 404),
    ("/api/table?view=nvtx-kernels&p=p0&attribution=evil", 400), ("/api/table?view=instances&p=p0", 400),
    ("/api/table?view=nvtx-kernels&p=p0&range=nope", 400),  # was 200 and no rows; `--range nope` names the ranges
    ("/api/timeline?p=p0&t0=1&t1=x&px=10", 400), ("/api/timeline?p=p0&t0=10&t1=1&px=10", 400),
    ("/api/timeline?p=p0&t0=1&t1=10&px=0", 400), ("/api/timeline?p=p0&t0=1&t1=10&px=100000", 400),
    ("/api/timeline?p=p0&t0=1&t1=99999999999999999999&px=10", 400), ("/api/timeline?p=p0&t0=1&px=10", 400),
    ("/api/timeline?p=p0&t0=1&t1=2&px=1&%ZZ", 400), ("/api/nope", 404), ("/../../etc/passwd", 404),
    ("/static/app.js", 404), ("/app.js/../serve_cmd.py", 404), ("/api/table?" + "a=1&" * 2000, 414),
]


@pytest.mark.parametrize("path,status", BAD, ids=[p[:60] for p, _ in BAD])
def test_refused_requests_are_short_json_errors(base, path, status):
    got, ctype, body = get(base, path)
    assert got == status
    assert ctype.startswith("application/json")
    error = json.loads(body)["error"]
    assert "\n" not in error and "Traceback" not in error and len(error) < 200


def test_writes_are_refused(base):
    request = urllib.request.Request(base + "api/meta", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(request, timeout=10)
    assert e.value.code == 405


def test_hostile_names_come_back_exact_in_json(base):
    pid = ids(base)["hostile.sqlite"]
    kernels = get_json(base, f"/api/table?view=kernels&p={pid}")["tables"]["kernels"]["rows"]
    assert kernels[0]["name"] == KERNEL_NAME
    lanes = get_json(base, f"/api/lanes?p={pid}")
    assert any(label.endswith(RANGE_NAME) for label in lanes["labels"])


# ------------------------------------------------------------------ the command
def test_bad_input_is_one_line_before_listening(tmp_path):
    missing = tmp_path / "missing.sqlite"
    result = CliRunner().invoke(cli, ["serve", str(missing), "--port", "0"])
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "missing.sqlite" in result.stderr


def test_a_port_in_use_is_a_usage_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", str(RANK0), "--port", str(port)])
    # the line before it notes that the file is one rank of a 2-rank job, as diagnose notes it
    last = result.stderr.splitlines()[-1]
    assert result.exit_code == 2 and last.startswith("Error: cannot listen") and "Traceback" not in result.stderr


def test_the_command_prints_its_url_and_ctrl_c_ends_it():
    proc = subprocess.Popen([sys.executable, "-m", "nsys_analytics", "serve", str(RANK0), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert json.loads(urllib.request.urlopen(url + "api/meta", timeout=30).read())["profiles"][0]["id"] == "p0"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
        assert "Interrupted." in proc.stderr.read() and "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ------------------------------------------------------------------ the page in Chromium
needs_chromium = pytest.mark.skipif(chromium.find() is None, reason="no Chromium on PATH: `apt-get install chromium`")


@pytest.fixture(scope="module")
def browser(base):
    with chromium.Browser(width=1280, height=800) as b:
        yield b


_loads = iter(range(1 << 30))


def navigate(b, url: str) -> None:
    """Load the page afresh (a new query each time: a change of the hash alone fires no load event)."""
    b.events.clear()
    base, _, hash_ = url.partition("#")
    b.call("Page.navigate", session=True, url=f"{base}?load={next(_loads)}#{hash_}")
    b.wait_for("Page.loadEventFired")


def wait(b, expression: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = b.evaluate(expression)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {expression}")


INKED = """(() => { const c = document.getElementById('timeline'), g = c.getContext('2d');
  const d = g.getImageData(130 * devicePixelRatio, 24, c.width - 130 * devicePixelRatio, c.height - 24).data;
  let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i+1] < 200 || d[i+2] < 200) n++; return n; })()"""


@needs_chromium
def test_timeline_draws_zooms_and_a_range_lists_its_kernels(base, browser):
    pid = ids(base)[RANK0.name]
    navigate(browser, f"{base}#/timeline?p={pid}")
    wait(browser, "window.__serve.timeline && window.__serve.timeline.data !== null")
    assert browser.evaluate(INKED) > 500
    before = browser.evaluate("[window.__serve.requests, window.__serve.draws, window.__serve.timeline.data.t1 - window.__serve.timeline.data.t0]")
    browser.evaluate("""(() => { const c = document.getElementById('timeline'), r = c.getBoundingClientRect();
      c.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: r.left + 700, clientY: r.top + 60, bubbles: true, cancelable: true}));
      c.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: r.left + 700, clientY: r.top + 60, bubbles: true, cancelable: true})); })()""")
    wait(browser, f"window.__serve.timeline.data.t1 - window.__serve.timeline.data.t0 < {before[2]} * 0.8")
    after = browser.evaluate("[window.__serve.requests, window.__serve.draws]")
    assert after[0] > before[0] and after[1] > before[1]
    asked = [u for u in browser.requested_urls() if "/api/timeline?" in u]
    assert len(asked) >= 2 and all(u.startswith(base) for u in browser.requested_urls())
    assert "t0=" in browser.evaluate("location.hash")
    # a double click shows the whole profile again; a click in the middle of its longest NVTX range lists its kernels
    browser.evaluate("document.getElementById('timeline').dispatchEvent(new MouseEvent('dblclick', {bubbles: true}))")
    wait(browser, f"window.__serve.timeline.data.t1 - window.__serve.timeline.data.t0 >= {before[2]}")
    cli_rows = cli_json("nvtx-kernels", RANK0, "--format", "json")
    with_kernels = json.dumps(sorted({r["range"] for r in cli_rows if r["range"]}))
    name = browser.evaluate("""(() => { const t = window.__serve.timeline, c = t.canvas, r = c.getBoundingClientRect();
      const ev = t.data.events.filter(e => e[5] === 3 && WITH_KERNELS.includes(t.info.labels[e[3]])).sort((a, b) => (Math.min(b[2], t.t1) - Math.max(b[1], t.t0)) - (Math.min(a[2], t.t1) - Math.max(a[1], t.t0)))[0];
      const x = t.xAt((Math.max(ev[1], t.t0) + Math.min(ev[2], t.t1)) / 2), y = 24 + ev[0] * 22 + 11;
      c.dispatchEvent(new MouseEvent('click', {clientX: r.left + x, clientY: r.top + y, bubbles: true}));
      return t.info.labels[ev[3]]; })()""".replace("WITH_KERNELS", with_kernels))
    wait(browser, "location.hash.startsWith('#/range') && document.querySelectorAll('tbody tr').length > 0")
    cells = browser.evaluate("[...document.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(td => td.textContent))")
    expected = [r for r in cli_rows if r["range"] == name]
    assert expected and [[c[0], int(c[6]), c[12]] for c in cells] == [[r["range"], r["total_time_ns"], r["kernel_name"]]
                                                                       for r in expected]
    assert browser.console_errors() == []


@needs_chromium
@pytest.mark.parametrize("page", ["overview", "kernels", "nvtx", "categories", "ranks", "diff"])
def test_every_page_loads_without_errors(base, browser, page):
    navigate(browser, f"{base}#/{page}?p=p0")
    wait(browser, "document.querySelector('main table, main .card, main .notes') !== null")
    assert browser.evaluate("document.querySelector('main .error')") is None
    assert browser.console_errors() == []


@needs_chromium
def test_hostile_names_are_text_in_the_page(base, browser):
    pid = ids(base)["hostile.sqlite"]
    navigate(browser, f"{base}#/kernels?p={pid}")
    wait(browser, "document.querySelectorAll('tbody tr').length > 0")
    shown = browser.evaluate("[...document.querySelectorAll('td a')].map(a => a.textContent)")
    assert KERNEL_NAME in shown
    navigate(browser, f"{base}#/timeline?p={pid}")
    wait(browser, "window.__serve.timeline && window.__serve.timeline.data !== null")
    navigate(browser, f"{base}#/nvtx?p={pid}")
    wait(browser, "document.querySelectorAll('tbody tr').length > 0")
    assert browser.evaluate("window.__pwned === undefined && document.querySelectorAll('img, main script').length === 0")
    assert browser.console_errors() == []


def screenshot(base: str, path: Path) -> None:
    """docs/images/serve.png (docs/make_images.py): the timeline of a rank."""
    with chromium.Browser(width=1280, height=560) as b:
        navigate(b, f"{base}#/timeline?p=p0")
        wait(b, "window.__serve.timeline && window.__serve.timeline.data !== null")
        b.screenshot(path, full_page=False)


def test_no_file_is_written_beside_the_profiles(base):
    assert sorted(os.listdir(RUN)) == [RANK0.name, "ddp_balanced.1.sqlite"]


def test_a_kernel_page_has_its_ncu_metrics_with_ncu():
    """--ncu: a kernel's page holds the rows `ncu REPORT --nsys PROFILE` gives for its name (through the API
    handler itself: the module's one server serves other profiles)."""
    from nsys_analytics.capabilities.serve import api

    nsys, ncu = FIXTURES / "ncu" / "matmul_nsys.sqlite", FIXTURES / "ncu" / "matmul_basic_raw.csv"
    session = open_session([str(nsys)], ncu=str(ncu))
    try:
        name = "softmax_warp_forward"
        row = next(r for r in cli_json("kernels", nsys, "--format", "json") if name in r["name"])
        demangled = row["name"]
        status, _, body = api.handle(session, "/api/table", urllib.parse.urlencode(
            {"view": "instances", "p": "p0", "name": demangled}))
        tables = json.loads(body)["tables"]
    finally:
        close_session(session)
    expected = cli_json("ncu", ncu, "--nsys", nsys, "--match", f"^{name}$", "--format", "json")
    assert status == 200 and tables["ncu"]["rows"] == expected and len(expected) > 0
    assert len(tables["instances"]["rows"]) == row["instances"]


def test_an_export_folder_is_one_profile():
    session = open_session([str(PROFILES / "gpt_train_cols_parquetdir")])
    try:
        assert [s.role for s in session.served.values()] == ["profile"] and session.pset is None
    finally:
        close_session(session)


@needs_chromium
def test_a_finding_links_to_its_window(base, browser):
    pid = ids(base)[RANK0.name]
    findings = get_json(base, f"/api/table?view=overview&p={pid}")["doc"]["diagnose"]["findings"]
    first = next(f["windows"][0] for f in findings if f["windows"])
    navigate(browser, f"{base}#/overview?p={pid}")
    wait(browser, "document.querySelector('.finding a') !== null")
    href = browser.evaluate("document.querySelector('.finding a').getAttribute('href')")
    args = dict(urllib.parse.parse_qsl(href.split("?", 1)[1]))
    assert args["p"] == pid and int(args["t0"]) < first["start_ns"] < first["end_ns"] < int(args["t1"])


def test_ranks_of_one_profile_with_vs_says_vs_is_a_comparison():
    """`serve A --vs B` lists two profiles; the ranks page said only "one profile is served"."""
    from nsys_analytics.capabilities.serve.pages import ranks
    from nsys_analytics.core.errors import UsageError

    session = open_session([str(PROFILES / "gpt_train.sqlite")], [str(PROFILES / "gpt_forward.sqlite")])
    try:
        with pytest.raises(UsageError, match=r"one profile is served as ranks \(--vs serves a comparison"):
            ranks(session, {})
    finally:
        close_session(session)
