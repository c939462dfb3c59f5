"""`make docs-images`: the pictures in docs/images/, drawn from the fixture profiles with the project's own
commands (a training step's timeline, a timeline with CUDA graphs and several streams, one step of two ranks on
one time axis, a category breakdown, a screenshot of the HTML report and one of the `serve` viewer, taken in headless Chromium)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "fixtures" / "profiles"
IMAGES = ROOT / "docs" / "images"
CLI = [sys.executable, "-m", "nsys_analytics"]
SHAPE = ["--batch", "4", "--seq-len", "256", "--d-model", "256", "--heads", "4"]


def timeline(profile: str, out: str, *window: str) -> None:
    import nsys_analytics
    from nsys_analytics.capabilities.visual.plot import data_width_px, plot_timeline
    from nsys_analytics.capabilities.visual.timeline import build_timeline
    from nsys_analytics.capabilities.visual.window import WindowRequest

    with nsys_analytics.open(PROFILES / profile) as p:
        t = build_timeline(p, WindowRequest(*window), width_px=data_width_px(12.0))
    plot_timeline(t, IMAGES / out)


def report_screenshot(out: str) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import chromium

    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        subprocess.run(CLI + ["html", str(PROFILES / "gpt_train.sqlite"), "-o", str(page)], check=True)
        with chromium.Browser(width=1200, height=1500) as browser:
            browser.load(page)
            browser.screenshot(IMAGES / out, full_page=False)


def serve_screenshot(out: str) -> None:
    """The `serve` viewer's timeline of a DDP rank, in headless Chromium (the browser of tests/test_serve.py)."""
    import threading
    import time

    from nsys_analytics.capabilities.serve.serve_cmd import close_session, open_session
    from nsys_analytics.capabilities.serve.server import Server

    sys.path.insert(0, str(ROOT / "tests"))
    import chromium

    session = open_session([str(ROOT / "fixtures" / "ranks" / "ddp_balanced")])
    server = Server(session, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with chromium.Browser(width=1280, height=420) as browser:
            steps = session.served["p0"].profile.sql(
                "SELECT min(start_ns), max(end_ns) FROM _nvtx_ranges WHERE text LIKE 'step%'").rows[0]
            window = f"&t0={steps[0] - 2_000_000}&t1={steps[1] + 2_000_000}"
            browser.call("Page.navigate", session=True, url=server.url + "#/timeline?p=p0" + window)
            browser.wait_for("Page.loadEventFired")
            deadline = time.monotonic() + 30
            while not browser.evaluate("window.__serve && window.__serve.firstPaint") and time.monotonic() < deadline:
                time.sleep(0.05)
            browser.screenshot(IMAGES / out, full_page=False)
    finally:
        server.shutdown()
        server.server_close()
        close_session(session)


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    timeline("gpt_train.sqlite", "timeline_step.png", None, None, "step_1")
    timeline("copies_streams_graph.sqlite", "timeline_graphs.png", "2471.4ms", "2473.1ms")
    subprocess.run(CLI + ["timeline", str(ROOT / "fixtures" / "ranks" / "ddp_straggler"), "--range", "step_3",
                          "-o", str(IMAGES / "timeline_ranks.png")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(CLI + ["breakdown", str(PROFILES / "gpt_forward.sqlite"), str(PROFILES / "gpt_train.sqlite"),
                          "--plot", str(IMAGES / "breakdown.png")], check=True, stdout=subprocess.DEVNULL)
    report_screenshot("report.png")
    serve_screenshot("serve.png")
    for image in sorted(IMAGES.glob("*.png")):
        print(f"{image.relative_to(ROOT)}: {image.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
