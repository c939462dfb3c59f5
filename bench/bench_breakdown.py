"""Benchmark `nsys-analytics breakdown` and `classify` on a >= 1 M-kernel profile (goal: query < 1 s).

    python bench/bench_breakdown.py [--profile PROFILE.sqlite] [--kernels 1000000] [--repeat 5]

The --by range lines need NVTX ranges named forward, backward and optimizer_step.

Default profile: /tmp/bench/train_x300.sqlite (cs336_small_train x 300, 1.06 M kernels) when it exists,
else a scaled copy of fixtures/profiles/gpt_train.sqlite. Prints, per basis, the in-process query time
(profile already open: classification of the distinct names, the query, the report; median and best of
--repeat runs), then the whole command's wall time and peak memory (median of 3 processes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, best_of, count_kernels, scaled_profile

LARGE = Path("/tmp/bench/train_x300.sqlite")
RANGES = ["forward", "backward", "optimizer_step"]  # present in cs336_small_train and gpt_train


def query_seconds(profile: Path, basis: str, repeat: int, window: str = "all") -> list[float]:
    """Seconds to build the breakdown report on an open profile, `repeat` times (`window` 'steady': the step
    ranges after the warm-up, the command's default, which places every operation in the NVTX ranges first)."""
    import nsys_analytics
    from nsys_analytics.capabilities.breakdown.report import build_report, summarize
    from nsys_analytics.capabilities.categories import load_rules
    from nsys_analytics.capabilities.nvtx.steady import steady_state

    rules = load_rules()
    seconds = []
    with nsys_analytics.open(profile) as p:
        for _ in range(repeat):
            t0 = time.perf_counter()
            build_report([summarize(p, rules, basis=basis, steady=steady_state(p, window))], rules)
            seconds.append(time.perf_counter() - t0)
    return seconds


def by_range_seconds(profile: Path, repeat: int, names: list[str] | None) -> list[float]:
    """Seconds for `breakdown --by range` (kernel basis) on an open profile."""
    import nsys_analytics
    from nsys_analytics.capabilities.categories import load_rules
    from nsys_analytics.capabilities.breakdown.report import build_report, summarize_ranges

    rules = load_rules()
    seconds = []
    with nsys_analytics.open(profile) as p:
        for _ in range(repeat):
            t0 = time.perf_counter()
            build_report(summarize_ranges(p, rules, names=names), rules, None)
            seconds.append(time.perf_counter() - t0)
    return seconds


def classify_seconds(profile: Path, repeat: int) -> list[float]:
    import nsys_analytics
    from nsys_analytics.capabilities.categories import load_rules
    from nsys_analytics.capabilities.categories.classify import classify_kernels

    rules = load_rules()
    seconds = []
    with nsys_analytics.open(profile) as p:
        for _ in range(repeat):
            t0 = time.perf_counter()
            classify_kernels(p, rules)
            seconds.append(time.perf_counter() - t0)
    return seconds


def line(label: str, seconds: list[float]) -> str:
    return f"  {label:<28} median {statistics.median(seconds):5.2f} s   best {min(seconds):5.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=Path, help="profile to use (default: see above)")
    parser.add_argument("--kernels", type=int, default=1_000_000, help="size of the scaled gpt_train fallback")
    parser.add_argument("--repeat", type=int, default=5, help="in-process runs per measurement")
    args = parser.parse_args()
    profile = args.profile or (LARGE if LARGE.exists() else scaled_profile(args.kernels))
    print(f"{profile.name}: {count_kernels(profile):,} kernels")
    print("query time (profile open):")
    for basis in ("kernel", "gpu-busy", "wall"):
        print(line(f"breakdown --basis {basis} --window all", query_seconds(profile, basis, args.repeat)))
    print(line("breakdown (steady state)", query_seconds(profile, "kernel", args.repeat, "steady")))
    print(line("classify", classify_seconds(profile, args.repeat)))
    print(line("by range, 3 named ranges", by_range_seconds(profile, args.repeat, RANGES)))
    print(line("by range, default (8 heaviest)", by_range_seconds(profile, args.repeat, None)))
    print("whole command (new process, median of 3):")
    for extra in ([], ["--window", "all"], ["--basis", "gpu-busy"]):
        whole = best_of([*CLI, "breakdown", str(profile), *extra])
        label = " ".join(["breakdown", *extra])
        print(f"  {label:<28} {whole['wall_s']:5.2f} s, peak {whole['peak_rss_mb']:.0f} MiB")


if __name__ == "__main__":
    main()
