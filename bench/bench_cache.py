"""The columnar cache at scale: each command cold (cache built by it), warm (cache read) and without the cache,
whole processes, beside nsys 2022.4 where it has the report.

    python bench/bench_cache.py [--profile P ...] [--runs 3] [--no-direct] [--no-nsys] [--only kernels nvtx]
    python bench/bench_cache.py --scaling            # the light commands at 1 M / 3 M / 10 M kernels
    python bench/bench_cache.py --profile P --heavy  # cache build, then the eight heaviest back to back,
                                                     # cold and warm (the ~4 GB profile: train_x5660)

The cache goes to a private folder under /tmp/bench (removed first), never to the user's. Prints markdown tables:
wall (median of --runs), CPU (user + system of the whole process tree) and peak memory (largest), per command and
mode, with the load average before and after (the machine may be shared: CPU time is the steadier figure).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, count_kernels, nsys_2022, scaled_profile
from measure import measure

FORWARD = Path("/tmp/bench/forward_k1000.sqlite")
# gpt_train scaled to 1 M, 3 M and 10 M kernels (bench/scale_profile.py)
SCALING = [Path("/tmp/bench/train_x300.sqlite"), Path("/tmp/bench/train_x850.sqlite"),
           Path("/tmp/bench/train_x2830.sqlite")]
LIGHT = ("kernels", "nvtx", "nvtx-kernels", "info", "sql count(*) kernels")
COMPETITOR = "27.4 s cache build, 16.3 s for eight analyses warm, 7.1 GB peak (published; other hardware)"


def commands(profile: Path, forward: Path | None) -> dict[str, list[str]]:
    p = str(profile)
    cmds = {
        "kernels": ["kernels", p],
        "nvtx": ["nvtx", p],
        "nvtx-kernels": ["nvtx-kernels", p],
        "nvtx-kernels --attribution gpu": ["nvtx-kernels", p, "--attribution", "gpu"],
        "info": ["info", p],
        "sql count(*) kernels": ["sql", p, "SELECT count(*) FROM kernels"],
        "diagnose": ["diagnose", p, "--format", "json"],
        "breakdown --by range": ["breakdown", p, "--by", "range"],
        "nvtx-gpu": ["nvtx-gpu", p],
    }
    if forward is not None:
        cmds["report (forward + train)"] = ["report", "--forward", str(forward), "--train", p]
    return cmds


NSYS_REPORTS = {"kernels": "gpukernsum", "nvtx": "nvtxsum", "nvtx-kernels": "nvtxkernsum"}
HEAVY = ("nvtx-kernels", "nvtx-kernels --attribution gpu", "diagnose", "breakdown --by range", "nvtx-gpu", "info",
         "kernels", "nvtx")


def run(args: list[str], env: dict, to_file: bool = True) -> dict:
    """The command in a fresh process with `env` added; its output to a file (`to_file`; never for `sql`) or to
    stdout, which measure() discards."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return measure([*CLI, *args, "-o", "/tmp/bench/cache_out"] if to_file and "sql" not in args[:1]
                       else [*CLI, *args], check=False)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def median(results: list[dict]) -> tuple[float, float, float, int]:
    return (statistics.median(r["wall_s"] for r in results), statistics.median(r["cpu_s"] for r in results),
            max(r["peak_rss_mb"] for r in results), max(r["returncode"] for r in results))


def cell(m: tuple[float, float, float, int] | None) -> str:
    if m is None:
        return "—"
    wall, cpu, peak, rc = m
    return f"{wall:.2f} s ({cpu:.2f} cpu), {peak:.0f} MiB" + (f" (exit {rc})" if rc else "")


def table(profile: Path, labels, cached: dict, direct: dict, folder: Path, runs: int, no_direct: bool,
          nsys: str | None, forward: Path | None) -> None:
    """One row per command: cold, warm, without the cache, nsys 2022.4."""
    print(f"\n{profile.name}: {count_kernels(profile):,} kernels, {profile.stat().st_size / 1e9:.2f} GB; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    print("| command | cold (builds what it reads) | warm | without cache | nsys 2022.4 |")
    print("| --- | --- | --- | --- | --- |")
    cmds = commands(profile, forward)
    for label in labels:
        cmd = cmds[label]
        shutil.rmtree(folder, ignore_errors=True)
        cold = median([run(cmd, cached)])
        warm = median([run(cmd, cached) for _ in range(runs)])
        plain = None if no_direct else median([run(cmd, direct) for _ in range(runs)])
        ref = None
        if nsys and label in NSYS_REPORTS:
            ref = median([measure([nsys, "stats", "--report", NSYS_REPORTS[label], "--format", "csv", "-o",
                                   "/tmp/bench/nsys_out", "--force-overwrite", "true", str(profile)],
                                  check=False) for _ in range(runs)])
        speedup = f"; warm {ref[0] / warm[0]:.1f}× faster" if ref else ""
        print(f"| `{label}` | {cell(cold)} | {cell(warm)} | {cell(plain)} | "
              f"{cell(ref) + f' ({NSYS_REPORTS[label]}{speedup})' if ref else '—'} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=Path, nargs="*", help="default: gpt_train scaled to 1 M kernels")
    parser.add_argument("--scaling", action="store_true", help="the light commands on the 1 M / 3 M / 10 M profiles")
    parser.add_argument("--forward", type=Path, default=FORWARD if FORWARD.exists() else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-direct", action="store_true", help="skip the runs without the cache")
    parser.add_argument("--no-nsys", action="store_true")
    parser.add_argument("--only", nargs="*", help="command labels to run")
    parser.add_argument("--heavy", action="store_true", help="cache build, then the eight heaviest back to back")
    args = parser.parse_args()
    profiles = args.profile or ([p for p in SCALING if p.exists()] if args.scaling else [scaled_profile(1_000_000)])
    folder = Path(tempfile.mkdtemp(prefix="cache-", dir="/tmp/bench"))
    cached = {"NSYS_ANALYTICS_CACHE": str(folder), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0"}
    direct = {"NSYS_ANALYTICS_NO_CACHE": "1"}
    try:
        if args.heavy:
            for profile in profiles:
                heavy(profile, commands(profile, None), cached, folder, args.no_direct, direct)
            return
        nsys = None if args.no_nsys else nsys_2022()
        for profile in profiles:
            labels = args.only or (LIGHT if args.scaling else list(commands(profile, args.forward)))
            table(profile, labels, cached, direct, folder, args.runs, args.no_direct, nsys, args.forward)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def heavy(profile: Path, cmds: dict, cached: dict, folder: Path, no_direct: bool, direct: dict) -> None:
    """The cache build, then the eight heaviest analyses back to back: cold (starting from an empty cache, so the
    first ones build what they read), warm, and without the cache."""
    print(f"{profile.name}: {count_kernels(profile):,} kernels, {profile.stat().st_size / 1e9:.2f} GB; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    names = [n for n in HEAVY if n in cmds]
    shutil.rmtree(folder, ignore_errors=True)
    build = run(["sql", str(profile), "SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM cuda_api),"
                 " (SELECT count(*) FROM _range_ops), (SELECT count(*) FROM nvtx_events),"
                 " (SELECT count(*) FROM memcpy), (SELECT count(*) FROM memset), (SELECT count(*) FROM syncs)"],
                cached)
    print(f"cache build (every table and decoded view): {build['wall_s']:.1f} s ({build['cpu_s']:.1f} cpu), "
          f"{build['peak_rss_mb']:.0f} MiB, exit {build['returncode']}; cache size "
          f"{sum(f.stat().st_size for f in folder.rglob('*') if f.is_file()) / 1e9:.2f} GB", flush=True)
    modes = [("warm", cached, False), ("cold", cached, True)]  # warm first: it reads the build above
    if not no_direct:
        modes.append(("without cache", direct, False))
    for mode, env, empty_first in modes:
        if empty_first:
            shutil.rmtree(folder, ignore_errors=True)
        total, cpu, peak = 0.0, 0.0, 0.0
        for n in names:
            r = run(cmds[n], env)
            total += r["wall_s"]
            cpu += r["cpu_s"]
            peak = max(peak, r["peak_rss_mb"])
            print(f"  {mode:<14} {n:<32} {r['wall_s']:7.2f} s {r['cpu_s']:7.2f} cpu {r['peak_rss_mb']:6.0f} MiB "
                  f"exit {r['returncode']}", flush=True)
        print(f"{mode}: eight analyses {total:.1f} s ({cpu:.1f} cpu), peak {peak:.0f} MiB", flush=True)
    print(f"competitor, same kind of file: {COMPETITOR}; load average after {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
