"""Where multi-rank work should run: in the process (`--jobs 1`) or in the process pool (`--jobs N`), by file size.

    python bench/bench_engine_choice.py [--runs 5] [--copies 1 20 60] [--ranks 2]

Times `nsys-analytics kernels RANK_FILES` (a whole CLI process, as a user runs it) over the ddp_straggler fixture's
two rank exports (about 1 MB each) and over rank files made from them with scale_profile.py (--copies: each event
replicated N times; made once into /tmp/bench/engine/), with `--jobs 1`, `--jobs <cores>` and the default, and
checks that the three outputs are identical. Prints the median wall time of each and the total size of the files.
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

from common import ROOT  # noqa: E402
from scale_profile import scale  # noqa: E402

WORK = Path("/tmp/bench/engine")


def rank_files(copies: int, ranks: int) -> list[Path]:
    sys.path.insert(0, str(ROOT))
    from tests.conftest import rank_files as fixture_ranks

    sources = fixture_ranks("ddp_straggler")
    if copies == 1 and ranks <= len(sources):
        return sources[:ranks]
    out = []
    for i in range(ranks):  # rank i a copy of rank i % 2 (its RANK variable says 0 or 1: ranks from file names)
        dst = WORK / f"x{copies}" / f"report.{i}.sqlite"
        if not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sources[i % len(sources)], dst) if copies == 1 else scale(sources[i % len(sources)], dst,
                                                                                      copies)
        out.append(dst)
    return out


def timed(args: list[str]) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "nsys_analytics", *args], capture_output=True, check=True)
    return time.perf_counter() - t0, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 20, 60])
    parser.add_argument("--ranks", type=int, default=2)
    a = parser.parse_args()
    cores = os.cpu_count() or 1
    os.environ["NSYS_ANALYTICS_NO_CACHE"] = "1"  # every run reads the exports: the same work each time
    for copies in a.copies:
        files = [str(f) for f in rank_files(copies, a.ranks)]
        size_mb = sum(os.path.getsize(f) for f in files) / 1e6
        modes = {"--jobs 1": ["--jobs", "1"], f"--jobs {cores}": ["--jobs", str(cores)], "default": []}
        walls, outputs = {m: [] for m in modes}, {}
        for _ in range(a.runs):  # interleaved: a change in the machine's load touches every mode alike
            for mode, extra in modes.items():
                wall, out = timed(["kernels", *files, "--format", "csv", *extra])
                walls[mode].append(wall)
                outputs[mode] = out
        same = len(set(outputs.values())) == 1
        print(f"{len(files)} ranks, {size_mb:.1f} MB in all (x{copies}): "
              + ", ".join(f"{m} {statistics.median(w):.2f} s" for m, w in walls.items())
              + f"; outputs identical: {same}", flush=True)


if __name__ == "__main__":
    main()
