"""The columnar cache at scale: each command cold (cache built by it), warm (cache read) and without the cache,
whole processes, beside nsys 2022.4 where it has the report.

    python bench/bench_cache.py [--profile /tmp/bench/train_x850.sqlite] [--forward F] [--runs 3] [--no-direct]
    python bench/bench_cache.py --profile P --heavy        # cache build, then the eight heaviest, cold and warm

The cache goes to a private folder under /tmp/bench (removed first), never to the user's. Prints a markdown
table: wall (median of --runs) and peak memory (largest) per command and mode.
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


def run(args: list[str], env: dict) -> dict:
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return measure([*CLI, *args, "-o", "/dev/null"] if "sql" not in args[:1] else [*CLI, *args], check=False)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def median(results: list[dict]) -> tuple[float, float, int]:
    return (statistics.median(r["wall_s"] for r in results), max(r["peak_rss_mb"] for r in results),
            max(r["returncode"] for r in results))


def cell(m: tuple[float, float, int] | None) -> str:
    if m is None:
        return "—"
    wall, peak, rc = m
    return f"{wall:.2f} s, {peak:.0f} MiB" + (f" (exit {rc})" if rc else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=Path, help="default: gpt_train scaled to 1 M kernels (bench-data/)")
    parser.add_argument("--forward", type=Path, default=FORWARD if FORWARD.exists() else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-direct", action="store_true", help="skip the runs without the cache")
    parser.add_argument("--no-nsys", action="store_true")
    parser.add_argument("--only", nargs="*", help="command labels to run")
    parser.add_argument("--heavy", action="store_true", help="cache build, then the eight heaviest back to back")
    args = parser.parse_args()
    args.profile = args.profile or scaled_profile(1_000_000)
    folder = Path(tempfile.mkdtemp(prefix="cache-", dir="/tmp/bench"))
    cached = {"NSYS_ANALYTICS_CACHE": str(folder), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0"}
    direct = {"NSYS_ANALYTICS_NO_CACHE": "1"}
    print(f"{args.profile.name}: {count_kernels(args.profile):,} kernels, "
          f"{args.profile.stat().st_size / 1e9:.2f} GB; load average {os.getloadavg()[0]:.1f}", flush=True)
    cmds = commands(args.profile, args.forward)
    try:
        if args.heavy:
            heavy(cmds, cached, direct, folder, args.no_direct)
            return
        print("| command | cold (builds what it reads) | warm | without cache | nsys 2022.4 |")
        print("| --- | --- | --- | --- | --- |")
        nsys = None if args.no_nsys else nsys_2022()
        for label, cmd in cmds.items():
            if args.only and label not in args.only:
                continue
            shutil.rmtree(folder, ignore_errors=True)
            cold = median([run(cmd, cached)])
            warm = median([run(cmd, cached) for _ in range(args.runs)])
            plain = None if args.no_direct else median([run(cmd, direct) for _ in range(args.runs)])
            ref = None
            if nsys and label in NSYS_REPORTS:
                ref = median([measure([nsys, "stats", "--report", NSYS_REPORTS[label], "--format", "csv", "-o",
                                       "/tmp/bench/nsys_out", "--force-overwrite", "true", str(args.profile)],
                                      check=False) for _ in range(args.runs)])
            print(f"| `{label}` | {cell(cold)} | {cell(warm)} | {cell(plain)} | "
                  f"{cell(ref) + f' ({NSYS_REPORTS[label]})' if ref else '—'} |", flush=True)
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def heavy(cmds: dict, cached: dict, direct: dict, folder: Path, no_direct: bool) -> None:
    """The eight heaviest analyses back to back: cold (empty cache), warm, and without the cache."""
    names = [n for n in HEAVY if n in cmds]
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    build = run(["sql", cmds["kernels"][1], "SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM cuda_api),"
                 " (SELECT count(*) FROM _range_ops), (SELECT count(*) FROM nvtx_events),"
                 " (SELECT count(*) FROM memcpy), (SELECT count(*) FROM memset), (SELECT count(*) FROM syncs)"],
                cached)
    print(f"cache build (every table and decoded view): {time.perf_counter() - t0:.1f} s, "
          f"{build['peak_rss_mb']:.0f} MiB, exit {build['returncode']}; cache size "
          f"{sum(f.stat().st_size for f in folder.rglob('*') if f.is_file()) / 1e9:.2f} GB", flush=True)
    for mode, env in (("warm", cached), *(() if no_direct else (("without cache", direct),))):
        total, peak = 0.0, 0.0
        for n in names:
            r = run(cmds[n], env)
            total += r["wall_s"]
            peak = max(peak, r["peak_rss_mb"])
            print(f"  {mode:<14} {n:<32} {r['wall_s']:7.2f} s {r['peak_rss_mb']:6.0f} MiB exit {r['returncode']}",
                  flush=True)
        print(f"{mode}: eight analyses {total:.1f} s, peak {peak:.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
