"""Benchmark `timeline` and `export --to perfetto` on a >= 1 M-kernel profile.

    python bench/bench_visual.py [--profile PROFILE.sqlite] [--kernels 1000000] [--runs 2]

Goals (issue: pictures): the window-less timeline of a 1 M-kernel profile < 5 s and a 10 ms window < 1 s, whole
process; the trace export of the whole profile in bounded memory. Default profile: /tmp/bench/train_x300.sqlite
(cs336_small_train x 300: 1.06 M kernels, 2.55 M CUDA calls) when it exists, else a scaled copy of
fixtures/profiles/gpt_train.sqlite. Prints each command's wall time (median of --runs) and peak memory.
nsys 2022.4 draws no timeline picture and writes no Chrome trace, so there is no side-by-side figure.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, best_of, count_kernels, scaled_profile

LARGE = Path("/tmp/bench/train_x300.sqlite")


def middle_ms(profile: Path) -> float:
    """Where the 10 ms window starts (ms): 5 ms before the start of the middle kernel row."""
    with sqlite3.connect(profile.resolve().as_uri() + "?mode=ro", uri=True) as con:
        [start] = con.execute("SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = "
                              "(SELECT count(*) / 2 FROM CUPTI_ACTIVITY_KIND_KERNEL)").fetchone()
    return start / 1e6 - 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--kernels", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    profile = args.profile or (LARGE if LARGE.exists() else scaled_profile(args.kernels))
    print(f"{profile}: {count_kernels(profile):,} kernels, {profile.stat().st_size / 2**20:,.0f} MiB")
    mid = middle_ms(profile)
    with tempfile.TemporaryDirectory(prefix="bench-visual-") as tmp:
        cases = [
            ("timeline, whole profile", ["timeline", profile, "-o", f"{tmp}/whole.png"], args.runs),
            ("timeline, 10 ms window", ["timeline", profile, "--start", f"{mid:.3f}ms", "--end",
                                        f"{mid + 10:.3f}ms", "-o", f"{tmp}/ten_ms.png"], args.runs),
            ("export --to perfetto, 10 ms window", ["export", profile, "--to", "perfetto", "--start",
                                                   f"{mid:.3f}ms", "--end", f"{mid + 10:.3f}ms", "-o",
                                                   f"{tmp}/ten_ms.json.gz"], args.runs),
            ("export --to perfetto, whole profile", ["export", profile, "--to", "perfetto", "-o",
                                                    f"{tmp}/whole.json.gz"], 1),
        ]
        for label, command, runs in cases:
            r = best_of(CLI + [str(c) for c in command], runs)
            print(f"{label:40s} {r['wall_s']:7.2f} s  {r['peak_rss_mb']:7.0f} MiB peak", flush=True)
        size = Path(f"{tmp}/whole.json.gz").stat().st_size
        print(f"whole-profile trace: {size / 2**20:,.0f} MiB gzipped")


if __name__ == "__main__":
    main()
