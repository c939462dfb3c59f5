"""Benchmark `nsys-analytics kernels` against `nsys stats --report gpukernsum` on a >= 1 M-kernel profile.

    python bench/bench_kernels.py [--kernels 1000000] [--source PROFILE.sqlite]

Prints whole-process wall time and peak memory of both, and the time of a second, cached query in one
Python session. nsys 2022.4 is the reference when installed (bench/install_nsys_2022.sh).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, DEFAULT_SOURCE, best_of, count_kernels, nsys_2022, scaled_profile  # noqa: E402


def in_process_queries(profile: Path) -> tuple[float, float]:
    """Seconds of the first and of a second kernel summary on one opened profile."""
    import nsys_analytics
    from nsys_analytics.capabilities.kernels.report import kernel_summary

    with nsys_analytics.open(profile) as p:
        t0 = time.perf_counter()
        kernel_summary(p)
        t1 = time.perf_counter()
        kernel_summary(p)
        t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=1_000_000)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    args = parser.parse_args()
    profile = scaled_profile(args.kernels, args.source)
    print(f"profile: {profile} ({count_kernels(profile):,} kernels, {profile.stat().st_size / 1e6:,.0f} MB)")
    out = Path(tempfile.mkdtemp())
    rows = [("nsys-analytics kernels", best_of([*CLI, "kernels", str(profile), "--format", "csv",
                                               "-o", str(out / "ours.csv")]))]
    nsys = nsys_2022()
    if nsys:
        rows.append(("nsys stats gpukernsum (2022.4)", best_of(
            [nsys, "stats", "--report", "gpukernsum", "--format", "csv", "--force-overwrite", "true",
             "-o", str(out / "nsys"), str(profile)])))
    else:
        print("nsys 2022.4 not installed (bash bench/install_nsys_2022.sh): no reference figures")
    print(f"\n{'command':<34} {'wall (s)':>9} {'peak (MiB)':>11}")
    for name, r in rows:
        print(f"{name:<34} {r['wall_s']:>9.2f} {r['peak_rss_mb']:>11.0f}")
    if nsys:
        print(f"speed-up: {rows[1][1]['wall_s'] / rows[0][1]['wall_s']:.1f}x (goal >= 5x), "
              f"peak memory goal < 300 MiB")
    first, second = in_process_queries(profile)
    print(f"in one session: first query {first:.3f} s, second (cached) {second:.3f} s (goal < 0.5 s)")


if __name__ == "__main__":
    main()
