"""Benchmark the full `nsys-analytics diagnose` (all rules) on a >= 1 M-kernel profile.

    python bench/bench_diagnose.py [--kernels 1000000] [--profile PROFILE.sqlite]

Prints whole-process wall time and peak memory (median of 3 runs), and the in-process time of each rule.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, best_of, count_kernels, scaled_profile


def per_rule_seconds(profile: Path) -> dict[str, float]:
    """Seconds of the shared setup, then of each rule alone (setup included), in one Python session."""
    import nsys_analytics
    from nsys_analytics.capabilities.diagnose import RULES, Window, diagnose
    from nsys_analytics.capabilities.diagnose.data import prepare

    times = {}
    with nsys_analytics.open(profile) as p:
        t0 = time.perf_counter()
        prepare(p, Window())
        times["setup (GPU operations)"] = time.perf_counter() - t0
        for rule in RULES:
            t0 = time.perf_counter()
            diagnose(p, (rule,))
            times[rule] = time.perf_counter() - t0
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=1_000_000)
    parser.add_argument("--profile", type=Path, help="profile to use instead of a scaled copy of gpt_train")
    args = parser.parse_args()
    profile = args.profile or scaled_profile(args.kernels)
    print(f"{profile.name}: {count_kernels(profile):,} kernels")
    whole = best_of([*CLI, "diagnose", str(profile), "--format", "json", "-o", "/dev/null"])
    print(f"diagnose, all rules, whole process: {whole['wall_s']:.2f} s, peak {whole['peak_rss_mb']:.0f} MiB")
    for name, seconds in per_rule_seconds(profile).items():
        print(f"  {name:<24} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
