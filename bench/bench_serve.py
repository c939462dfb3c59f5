"""Benchmark `nsys-analytics serve` on a >= 1 M-kernel profile: start-up, window answers, payload, memory, first paint.

    python bench/bench_serve.py [--kernels 1000000] [--profile PROFILE.sqlite] [--px 1500]

Runs the command as users do (a process on a free port), twice: the first start builds the profile's columnar
cache, the second reads it (warm). Then, on the warm server: the whole-profile view and 10 zooms and pans, each
timed by the server itself (its Server-Timing header) and by the client, with the bytes of each answer; the
server's memory (VmRSS, VmHWM); and the first paint in headless Chromium (the page's own clock, from the start of
its load to the first drawn window), where Chromium is installed.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from common import CLI, count_kernels, scaled_profile


def start(profile: Path) -> tuple[subprocess.Popen, str, float]:
    """The server process, its URL and the seconds until it printed it (profiles opened, timeline prepared)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*CLI, "serve", str(profile), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit(f"serve did not start (exit {proc.wait()})")
    return proc, url, time.perf_counter() - t0


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


def fetch(url: str) -> tuple[float, float, int]:
    """(server ms, client ms, bytes) of one GET."""
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        body = r.read()
        timing = r.headers.get("Server-Timing", "app;dur=nan")
    return float(timing.split("dur=")[1]), (time.perf_counter() - t0) * 1000, len(body)


def views(t0: int, t1: int, at: int) -> list[tuple[str, int, int]]:
    """The whole profile, then 10 steps of a user: zoom in 4x around `at` (the busiest column), twice, pan by a
    third of the view, and so on."""
    out = [("whole profile", t0, t1)]
    a, b = t0, t1
    for i in range(10):
        span = b - a
        if i % 3 == 2:
            a, b = a + span // 3, b + span // 3
            out.append(("pan", a, b))
        else:
            mid = min(max(at, a + span // 8), b - span // 8)
            a, b = mid - span // 8, mid + span // 8
            out.append(("zoom", a, b))
    return out


def busiest(url: str, t0: int, t1: int, px: int) -> int:
    """The middle of the whole view's busiest GPU column."""
    answer = json.loads(urllib.request.urlopen(f"{url}api/timeline?p=p0&t0={t0}&t1={t1}&px={px}", timeout=120).read())
    col = max((busy, col) for cols in answer["columns"].values() for col, busy, _cat in cols)[1]
    return answer["t0"] + col * answer["ns_per_px"] + answer["ns_per_px"] // 2


def rss_mib(pid: int) -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def first_paint_ms(url: str) -> float | None:
    import chromium

    if chromium.find() is None:
        return None
    with chromium.Browser(width=1600, height=900) as b:
        b.call("Page.navigate", session=True, url=url + "#/timeline?p=p0")
        b.wait_for("Page.loadEventFired")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            value = b.evaluate("window.__serve && window.__serve.firstPaint")
            if value:
                return value
            time.sleep(0.02)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=1_000_000)
    parser.add_argument("--profile", type=Path, help="profile to use instead of a scaled copy of gpt_train")
    parser.add_argument("--px", type=int, default=1500, help="the timeline's width in pixel columns")
    args = parser.parse_args()
    profile = args.profile or scaled_profile(args.kernels)
    print(f"{profile.name}: {count_kernels(profile):,} kernels")
    proc, url, cold = start(profile)
    stop(proc)
    proc, url, warm = start(profile)
    try:
        print(f"start-up until the URL is printed: {cold:.2f} s (first start: builds the cache unless an earlier run did), "
              f"{warm:.2f} s (warm)")
        lanes = json.loads(urllib.request.urlopen(url + "api/lanes?p=p0", timeout=60).read())
        print(f"{len(lanes['lanes'])} lanes")
        server = []
        at = busiest(url, lanes["start_ns"], lanes["end_ns"], args.px)
        for what, a, b in views(lanes["start_ns"], lanes["end_ns"], at):
            s, c, n = fetch(f"{url}api/timeline?p=p0&t0={a}&t1={b}&px={args.px}")
            server.append(s)
            print(f"  {what:<14} {(b - a) / 1e6:12.3f} ms shown: server {s:6.1f} ms, client {c:6.1f} ms, {n / 1024:7.1f} KiB")
        print(f"window answers: median {statistics.median(server):.1f} ms, max {max(server):.1f} ms (server time)")
        paint = first_paint_ms(url)
        print("first paint: " + (f"{paint:.0f} ms after the page began to load" if paint else "no Chromium"))
        rss, peak = rss_mib(proc.pid)
        print(f"server memory: {rss:.0f} MiB now, peak {peak:.0f} MiB")
    finally:
        stop(proc)


if __name__ == "__main__":
    main()
