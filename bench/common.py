"""Shared by the bench_*.py scripts: the scaled profile they run on, and nsys 2022.4 when installed."""

from __future__ import annotations

import compileall
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from measure import measure
from scale_profile import copies_for_kernels, scale

ROOT = Path(__file__).resolve().parent.parent
# The benchmarks time answers computed from the profile or its cache: a command line typed again would otherwise be
# printed from its kept output (cli/replay.py); bench_floor.py times both.
os.environ.setdefault("NSYS_ANALYTICS_REPLAY", "0")
# The package is timed as pip installs it, with its bytecode compiled. Where nothing writes it (a fresh checkout
# under PYTHONDONTWRITEBYTECODE=1) every command would compile its ~50 modules first: about 50 ms at each start.
compileall.compile_dir(ROOT / "nsys_analytics", quiet=1)
DATA = ROOT / "bench-data"  # git-ignored
DEFAULT_SOURCE = ROOT / "fixtures" / "profiles" / "gpt_train.sqlite"
CLI = [sys.executable, "-m", "nsys_analytics"]


def scaled_profile(kernels: int, source: Path = DEFAULT_SOURCE) -> Path:
    """A copy of `source` replicated along the time axis to at least `kernels` kernels (made once)."""
    DATA.mkdir(exist_ok=True)
    target = DATA / f"{source.stem}_k{kernels // 1000}.sqlite"
    if not target.exists():
        copies = copies_for_kernels(source, kernels)
        print(f"making {target.name}: {copies} copies of {source.name} ...", flush=True)
        scale(source, target, copies)
    return target


def nsys_2022() -> str | None:
    """Path of an nsys 2022.4 CLI (the speed reference), or None."""
    nsys = shutil.which("nsys")
    if nsys is None:
        return None
    version = subprocess.run([nsys, "--version"], capture_output=True, text=True).stdout
    return nsys if "2022.4" in version else None


def best_of(cmd: list[str], runs: int = 3) -> dict:
    """Median wall time and the largest peak memory over `runs` runs of a whole process."""
    results = [measure(cmd) for _ in range(runs)]
    return {"wall_s": statistics.median(r["wall_s"] for r in results),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in results)}


def count_kernels(path: Path) -> int:
    import sqlite3

    uri = path.resolve().as_uri() + "?mode=ro"
    with sqlite3.connect(uri, uri=True) as con:
        return con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
