"""Where the columnar cache starts to pay: profiles of 10 k to 250 k kernels (2 to 50 MB), each command read
directly and through the cache, whole processes, beside nsys 2022.4 where it has the report.

    python bench/bench_cache_threshold.py [--kernels 10000,20000,30000,100000,250000] [--rounds 2] [--no-nsys]
                                          [--source EXPORT.sqlite]   # default: the gpt_train fixture

For each size and each way of reading (direct: NSYS_ANALYTICS_CACHE_MIN_SIZE above the file; cached: 0), in
interleaved rounds:
- first: the command from an empty cache folder (cached: it builds the parts it reads);
- warm: the same command again, the median of 3 (computed, not replayed);
- payback: how many warm runs repay what the first cached run costs beyond the first direct one,
  (first cached - first direct) / (warm direct - warm cached); 0 or less: the cache costs nothing even once;
- a session: every command once in a row from an empty cache folder, summed.
The default threshold (data/cache/folder.DEFAULT_MIN_SIZE) is printed with the figures. Caches go to a private
folder under /tmp/bench, removed first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, DEFAULT_SOURCE, ROOT, count_kernels, nsys_2022, scaled_profile

sys.path.insert(0, str(ROOT))
from nsys_analytics.data.cache.folder import DEFAULT_MIN_SIZE  # noqa: E402

COMMANDS = ["info", "kernels", "nvtx", "nvtx-kernels", "nvtx-gpu", "breakdown", "diagnose"]
NSYS_REPORTS = {"kernels": "gpukernsum", "nvtx": "nvtxsum", "nvtx-kernels": "nvtxkernsum"}
CACHE = Path("/tmp/bench/threshold_cache")
MODES = {"direct": str(1 << 50), "cached": "0"}


def timed(cmd: list[str], env: dict | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def one_round(profile: Path, mode: str) -> dict[str, tuple[float, float]]:
    """{command: (first, warm)} and {'session': (sum of firsts, 0)} for one way of reading."""
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(CACHE), "NSYS_ANALYTICS_REPLAY": "0",
           "NSYS_ANALYTICS_CACHE_MIN_SIZE": MODES[mode]}
    out = {}
    for command in COMMANDS:
        shutil.rmtree(CACHE, ignore_errors=True)
        cmd = [*CLI, command, str(profile)]
        first = timed(cmd, env)
        out[command] = (first, statistics.median(timed(cmd, env) for _ in range(3)))
    shutil.rmtree(CACHE, ignore_errors=True)
    out["session"] = (sum(timed([*CLI, c, str(profile)], env) for c in COMMANDS), 0.0)
    return out


def nsys_times(profile: Path, nsys: str) -> dict[str, float]:
    return {command: statistics.median(
        timed([nsys, "stats", "-q", "--report", report, "--format", "csv", "-o", "-", str(profile)])
        for _ in range(3)) for command, report in NSYS_REPORTS.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default="10000,20000,30000,100000,250000")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-nsys", action="store_true")
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the export the profiles are scaled from")
    args = ap.parse_args()
    nsys = None if args.no_nsys else nsys_2022()
    print(f"default NSYS_ANALYTICS_CACHE_MIN_SIZE: {DEFAULT_MIN_SIZE / 2**20:g} MiB; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    for kernels in [int(k) for k in args.kernels.split(",")]:
        profile = scaled_profile(kernels, args.source)
        rounds = {mode: [] for mode in MODES}
        for _ in range(args.rounds):  # interleaved: a drift of the machine falls on both ways alike
            for mode in MODES:
                rounds[mode].append(one_round(profile, mode))
        reference = nsys_times(profile, nsys) if nsys else {}
        size = profile.stat().st_size / 2**20
        side = "cached" if profile.stat().st_size >= DEFAULT_MIN_SIZE else "read directly"
        print(f"\n#### {profile.name}: {count_kernels(profile):,} kernels, {size:.1f} MiB ({side} by default); "
              f"median of {args.rounds} rounds, load average {os.getloadavg()[0]:.1f} after\n")
        print("| command | direct: first | direct: warm | cached: first | cached: warm | payback (warm runs) "
              "| nsys 2022.4 |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for command in [*COMMANDS, "session"]:
            (d_first, d_warm), (c_first, c_warm) = (
                [statistics.median(x) for x in zip(*(r[command] for r in rounds[mode]))] for mode in MODES)
            if command == "session":
                print(f"| every command once, in a row | {d_first:.2f} s | — | {c_first:.2f} s | — | — | — |")
                continue
            gain, cost = d_warm - c_warm, c_first - d_first
            payback = "0" if cost <= 0 else f"{cost / gain:.1f}" if gain > 0 else "never"
            ref = f"{reference[command]:.2f} s ({NSYS_REPORTS[command]})" if command in reference else "—"
            print(f"| `{command}` | {d_first:.2f} s | {d_warm:.2f} s | {c_first:.2f} s | {c_warm:.2f} s | {payback} "
                  f"| {ref} |")
    shutil.rmtree(CACHE, ignore_errors=True)


if __name__ == "__main__":
    main()
