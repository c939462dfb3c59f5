"""Benchmark `timeline` and `export --to perfetto` on >= 1 M-kernel profiles.

    python bench/bench_visual.py [--profile PROFILE.sqlite] [--large PROFILE.sqlite] [--runs 2]

Goals (issue: pictures): the timeline of a 10 ms window < 1 s and of a whole 1 M-kernel profile < 5 s, whole
process; the trace export of the whole profile streamed in bounded memory. Profiles: /tmp/bench/train_x300.sqlite
(cs336_small_train x 300: 1.06 M kernels, 2.55 M CUDA calls) when it exists, else a scaled copy of
fixtures/profiles/gpt_train.sqlite; and, when it exists, /tmp/bench/train_x2830.sqlite (10 M kernels) for the
timeline. Each profile gets a fresh cache folder: the first command builds the cache parts it reads (`cold`), the
later ones read them (`warm`, the median of --runs); `direct` reads the export itself (--no-cache). Prints wall
time, CPU time (user + system; on a shared machine the wall time grows with the load, the CPU time much less) and
peak memory, and the load average. nsys 2022.4 draws no timeline and writes no Chrome trace: no side-by-side.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, count_kernels, scaled_profile
from measure import measure

LARGE = Path("/tmp/bench/train_x300.sqlite")
HUGE = Path("/tmp/bench/train_x2830.sqlite")


def middle_ms(profile: Path) -> float:
    """Where the 10 ms window starts (ms): 5 ms before the start of the middle kernel row."""
    with sqlite3.connect(profile.resolve().as_uri() + "?mode=ro", uri=True) as con:
        [start] = con.execute("SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = "
                              "(SELECT count(*) / 2 FROM CUPTI_ACTIVITY_KIND_KERNEL)").fetchone()
    return start / 1e6 - 5


def run(label: str, args: list, runs: int, env: dict) -> None:
    os.environ.update(env)
    results = [measure([*CLI, *map(str, args)]) for _ in range(runs)]
    wall = statistics.median(r["wall_s"] for r in results)
    cpu = statistics.median(r["cpu_s"] for r in results)
    peak = max(r["peak_rss_mb"] for r in results)
    print(f"{label:48s} {wall:7.2f} s wall {cpu:7.2f} s CPU {peak:6.0f} MiB peak   load {_load()}", flush=True)


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench(profile: Path, runs: int, export: bool) -> None:
    print(f"\n{profile}: {count_kernels(profile):,} kernels, {profile.stat().st_size / 2**20:,.0f} MiB", flush=True)
    mid = middle_ms(profile)
    window = ["--start", f"{mid:.3f}ms", "--end", f"{mid + 10:.3f}ms"]
    with tempfile.TemporaryDirectory(prefix="bench-visual-") as tmp:
        cache = {"NSYS_ANALYTICS_CACHE": f"{tmp}/cache", "NSYS_ANALYTICS_NO_CACHE": ""}
        direct = {**cache, "NSYS_ANALYTICS_NO_CACHE": "1"}
        run("timeline, 10 ms window, direct", ["timeline", profile, *window, "-o", f"{tmp}/w.png"], 1, direct)
        run("timeline, 10 ms window, cold", ["timeline", profile, *window, "-o", f"{tmp}/w.png"], 1, cache)
        run("timeline, 10 ms window, warm", ["timeline", profile, *window, "-o", f"{tmp}/w.png"], runs, cache)
        run("timeline, whole profile, warm", ["timeline", profile, "-o", f"{tmp}/whole.png"], runs, cache)
        if not export:
            return
        run("export --to perfetto, 10 ms window, warm",
            ["export", profile, "--to", "perfetto", *window, "-o", f"{tmp}/w.json.gz"], runs, cache)
        run("export --to perfetto, whole profile, warm",
            ["export", profile, "--to", "perfetto", "-o", f"{tmp}/whole.json.gz"], 1, cache)
        print(f"whole-profile trace: {Path(f'{tmp}/whole.json.gz').stat().st_size / 2**20:,.0f} MiB gzipped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", type=Path, help="the 1 M-kernel profile (timeline and export)")
    parser.add_argument("--large", type=Path, help="a 10 M-kernel profile (timeline only)")
    parser.add_argument("--kernels", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    bench(args.profile or (LARGE if LARGE.exists() else scaled_profile(args.kernels)), args.runs, export=True)
    large = args.large or (HUGE if HUGE.exists() else None)
    if large is not None:
        bench(large, args.runs, export=False)


if __name__ == "__main__":
    main()
