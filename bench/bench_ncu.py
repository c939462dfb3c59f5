"""Benchmark loading Nsight Compute reports into the query layer (`NcuReport`), and check the values.

    python bench/bench_ncu.py [--report R.ncu-rep] [--repeat 3]

Default report: bench-data/ncu/many_basic.ncu-rep, 660 kernels of `fixtures/workloads/ncu_matmul.py many`
profiled with `--set basic` on an H200 (made by `bash fixtures/ncu/regenerate.sh bench` on the GPU machine;
`.xz` files there are decompressed once); without it, the fixture fixtures/ncu/matmul_basic.ncu-rep.xz.
Prints, for the report and for its `--page raw` CSV when one lies next to it (R_raw.csv):
load time in this process (one reading process, and the default number), milliseconds per kernel
and the time for 1,000 kernels at that rate; a cold `nsys-analytics sql` run (wall time, peak memory);
how many metric cells equal ncu's CSV; and the reference time of `ncu -i R --csv --page raw` on the GPU
machine, read from bench-data/ncu/ncu_regenerate.log when it is there.
"""

from __future__ import annotations

import argparse
import lzma
import os
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import measure  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data" / "ncu"  # git-ignored
DEFAULT = DATA / "many_basic.ncu-rep"
FALLBACK = ROOT / "fixtures" / "ncu" / "matmul_basic.ncu-rep.xz"
PER = 1000  # kernels the issue asks about


def unpacked(path: Path) -> Path:
    """`path`, decompressed into bench-data/ncu/ when it is (or only exists as) an .xz file."""
    xz = path if path.suffix == ".xz" else path.with_name(path.name + ".xz")
    target = DATA / xz.name[:-3] if path.suffix == ".xz" or not path.exists() else path
    if not target.exists() and xz.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        with lzma.open(xz) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 22)
    return target


def load_times(path: Path, workers: int | None, repeat: int) -> tuple[float, int]:
    """(median seconds, kernels) of NcuReport(path) in this process."""
    from nsys_analytics.capabilities.ncu.report import NcuReport

    times, kernels = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        report = NcuReport(path, workers=workers)
        times.append(time.perf_counter() - t0)
        kernels = report.num_kernels
        report.close()
    return statistics.median(times), kernels


def cold_cli(path: Path) -> dict:
    code = "from nsys_analytics.cli.main import main; main()"
    return measure([sys.executable, "-c", code, "sql", str(path), "SELECT count(*) FROM ncu_kernels"])


def verify(report_path: Path, csv_path: Path) -> str:
    from nsys_analytics.capabilities.ncu.report import NcuReport
    from nsys_analytics.capabilities.ncu.verify import compare

    with NcuReport(report_path) as report:
        result = compare(report, csv_path)
    return (f"{result.matched:,} of {result.cells:,} metric cells equal ncu's CSV, "
            f"{result.display_units} columns' display units equal, {len(result.mismatches)} mismatches")


def ncu_reference(log: Path) -> list[str]:
    """The `ncu -i --csv --page raw` timings recorded by fixtures/ncu/regenerate.sh on the GPU machine."""
    if not log.exists():
        return []
    return [line.split("TIMING ", 1)[1] for line in log.read_text().splitlines() if "TIMING" in line]


def line(label: str, seconds: float, kernels: int) -> str:
    per_kernel = seconds / kernels * 1e3
    return (f"  {label:<34} {seconds:7.2f} s  {per_kernel:6.2f} ms/kernel  -> {per_kernel * PER / 1e3:5.2f} s "
            f"per {PER:,} kernels")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--report", type=Path, default=DEFAULT)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    report = unpacked(args.report)
    if not report.exists():
        print(f"{args.report} not found: using the fixture {FALLBACK.name}")
        report = unpacked(FALLBACK)
    raw = unpacked(report.with_name(report.name.replace(".ncu-rep", "_raw.csv")))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"report {report} ({report.stat().st_size / 2**20:.1f} MiB), {cpus} CPUs, Python {sys.version.split()[0]}")

    seconds, kernels = load_times(report, 1, args.repeat)
    print(f"{kernels} kernels; median of {args.repeat} loads into DuckDB (tables + views):")
    print(line(".ncu-rep, 1 reading process", seconds, kernels))
    if cpus and cpus > 1:
        seconds, _ = load_times(report, None, args.repeat)
        print(line(".ncu-rep, default processes", seconds, kernels))
    if raw.exists():
        seconds, _ = load_times(raw, None, args.repeat)
        print(line("--page raw CSV", seconds, kernels))
    cold = cold_cli(report)
    print(f"  cold `nsys-analytics sql R 'SELECT count(*) ...'`: {cold['wall_s']:.2f} s wall, "
          f"{cold['peak_rss_mb']:.0f} MiB peak")
    if raw.exists():
        print(f"check: {verify(report, raw)}")
    reference = ncu_reference(DATA / "ncu_regenerate.log")
    if reference:
        print("reference, on the GPU machine (16 CPUs), from ncu_regenerate.log:")
        for text in reference:
            print(f"  {re.sub(r'/tmp/ncufx/bench/', '', text)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
