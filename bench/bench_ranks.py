"""Benchmark many-rank work: `kernels`, `ranks` and `nccl --by op` over 64 rank files of ~250 k kernels each (16 M in
all), on the local process pool and on a local Dask cluster of 2 workers, beside one-file runs; with --sequential
also in the command's own process (`--jobs 1`), whose output each engine's must equal.

    python bench/bench_ranks.py [--ranks 64] [--kernels 250000] [--source RANK.sqlite] [--dir /tmp/bench/ranks64_ddp]
                                [--no-dask] [--sequential]

The rank files are made once (scale_profile.py replicates a real rank export, rank 0 of the ddp_straggler fixture,
along the time axis; the other ranks are byte copies of it under their own names, report.N.sqlite) and reused. Prints wall time, the peak memory of the
parent process (the one that merges), the machine's load, and what dominates.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, count_kernels  # noqa: E402
from scale_profile import copies_for_kernels, scale  # noqa: E402

DDP_RANK = ROOT / "fixtures" / "ranks" / "ddp_straggler" / "ddp_straggler.0.sqlite"
DEFAULT_SOURCE = DDP_RANK if DDP_RANK.exists() else ROOT / "fixtures" / "profiles" / "gpt_train.sqlite"

# Runs the CLI in this very process and reports its own peak RSS (the parent: it merges) and its children's.
_RUN = """
import json, resource, sys, time
from nsys_analytics.cli.main import cli
t0 = time.perf_counter()
try:
    cli(sys.argv[2:], prog_name="nsys-analytics", standalone_mode=False)
    rc = 0
except SystemExit as e:
    rc = e.code or 0
wall = time.perf_counter() - t0
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime  # this process and the children it waited for
with open(sys.argv[1], "w") as f:
    json.dump({"wall_s": wall, "parent_peak_mib": me.ru_maxrss / 1024, "self_cpu_s": cpu, "rc": rc}, f)
"""


def make_ranks(source: Path, folder: Path, ranks: int, kernels: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / f"report.{r}.sqlite" for r in range(ranks)]
    if all(f.exists() for f in files):
        return files
    need_gb = ranks * source.stat().st_size * copies_for_kernels(source, kernels) / 1e9
    free_gb = shutil.disk_usage(folder).free / 1e9
    print(f"making {ranks} rank files of ~{kernels:,} kernels from {source.name} (~{need_gb:.1f} GB; "
          f"{free_gb:.0f} GB free)", flush=True)
    if need_gb > free_gb * 0.8:
        sys.exit(f"not enough disk under {folder}")
    t0 = time.perf_counter()
    first = files[0]
    if not first.exists():
        scale(source, first, copies_for_kernels(source, kernels))
    for f in files[1:]:
        if not f.exists():
            shutil.copyfile(first, f)
    print(f"made in {time.perf_counter() - t0:.0f} s", flush=True)
    return files


def run(args: list[str], env: dict | None = None, cluster_pids: list[int] = ()) -> dict:
    """The command in a fresh process: its wall time, its own peak RSS (the parent: it merges), and the CPU time
    (user + system) of it and every process it starts (the pool's workers are the forkserver's children: their
    CPU is sampled while they live) plus, for Dask, the cluster's worker processes."""
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_ranks_{os.getpid()}.json"
    before = _cpu_of(cluster_pids)
    proc = subprocess.Popen([sys.executable, "-c", _RUN, str(out), *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    seen: dict[int, float] = {}
    while proc.poll() is None:
        _sample_children(proc.pid, seen)
        time.sleep(0.25)
    stderr = proc.stderr.read()
    result = json.loads(out.read_text()) if out.exists() else {"wall_s": float("nan"), "parent_peak_mib": 0}
    result["cpu_s"] = result.get("self_cpu_s", 0.0) + sum(seen.values()) + (_cpu_of(cluster_pids) - before)
    result["stderr"] = stderr.strip().splitlines()[-1:] if proc.returncode else []
    out.unlink(missing_ok=True)
    return result


def _sample_children(pid: int, seen: dict[int, float]) -> None:
    """The latest CPU time of every live descendant of pid (a worker's last quarter second is not counted)."""
    import psutil

    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return
    for k in kids:
        try:
            t = k.cpu_times()
            seen[k.pid] = t.user + t.system
        except psutil.Error:
            pass


def _cpu_of(pids) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        try:
            for p in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]:
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            pass
    return total


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--kernels", type=int, default=250_000)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench/ranks64_ddp"))
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--sequential", action="store_true",
                        help="also run each command with --jobs 1 and compare the outputs (slow: one core)")
    args = parser.parse_args()
    files = make_ranks(args.source, args.dir, args.ranks, args.kernels)
    per_file = count_kernels(files[0])
    print(f"{len(files)} rank files in {args.dir}, {per_file:,} kernels each ({per_file * len(files):,} in all), "
          f"{files[0].stat().st_size / 1e6:.0f} MB each; {load()}")
    out = Path(os.environ.get("TMPDIR", "/tmp")) / "bench_ranks_out"
    out.mkdir(exist_ok=True)
    # The rank files (107 MB) are over the columnar cache's threshold: the first read of each builds its cache
    # (docs/cache.md), later reads use it. A fresh cache folder of the benchmark's own: a first pass measures the
    # first read, every other run meets warm caches (the pool, the one-file runs and Dask alike; the Dask workers
    # inherit this environment).
    cache = Path(tempfile.mkdtemp(prefix="bench_ranks_cache_", dir=os.environ.get("TMPDIR", "/tmp")))
    os.environ["NSYS_ANALYTICS_CACHE"] = str(cache)
    try:
        rows = [(f"{command}: {len(files)} files, pool, first read" + (" (2nd)" if command == "ranks" else ""), run(
            [command, str(args.dir), "--format", "csv", "-o", str(out / f"cold_{command}.csv")]))
            for command in ("kernels", "ranks")]
        rows += warm_rows(files, args, out)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"\n{'run (caches warm unless said)':<48} {'wall (s)':>9} {'CPU (s)':>8} {'parent peak (MiB)':>18}")
    for name, r in rows:
        cpu = f"{r['cpu_s']:>8.1f}" if r.get("cpu_s") else f"{'-':>8}"
        print(f"{name:<48} {r['wall_s']:>9.2f} {cpu} {r['parent_peak_mib']:>18.0f}"
              + (f"  {r['stderr']}" if r.get("stderr") else ""))
    print("CPU: user + system of the command's process and every process it started (the pool's workers), and "
          "for Dask of the cluster's worker processes (the scheduler runs in this benchmark's process: not counted). "
          "Wall: the command itself, from the CLI's entry (not the interpreter's start).")
    print(f"\nafter: {load()}")


# command -> its arguments after the files
COMMANDS = {"kernels": ["kernels"], "ranks": ["ranks"], "nccl": ["nccl", "--by", "op"]}


def warm_rows(files, args, out: Path) -> list:
    rows = []
    for command, words in COMMANDS.items():
        one = run([words[0], str(files[0]), *words[1:], "--format", "csv", "-o", str(out / f"one_{command}.csv")])
        pool = run([words[0], str(args.dir), *words[1:], "--format", "csv", "-o", str(out / f"pool_{command}.csv")])
        rows.append((f"{command}: 1 file", one))
        rows.append((f"{command}: {len(files)} files, local pool", pool))
        ideal = one["wall_s"] * len(files) / (os.cpu_count() or 1)
        rows.append((f"  (1-file time x {len(files)} / {os.cpu_count()} cores)", {
            "wall_s": ideal, "parent_peak_mib": float("nan"), "cpu_s": one.get("cpu_s", 0) * len(files)}))
        if args.sequential:
            rows.append((f"{command}: {len(files)} files, sequential", run(
                [words[0], str(args.dir), *words[1:], "--jobs", "1", "--format", "csv", "-o",
                 str(out / f"seq_{command}.csv")])))
            same = (out / f"seq_{command}.csv").read_bytes() == (out / f"pool_{command}.csv").read_bytes()
            print(f"{command}: pool output {'identical to' if same else 'DIFFERS from'} the sequential engine's",
                  flush=True)
    if not args.no_dask:
        rows += dask_rows(files, args.dir, out)
    return rows


def dask_rows(files, folder: Path, out: Path) -> list:
    try:
        from distributed import LocalCluster
    except ImportError:
        print("distributed not installed: no Dask figures")
        return []
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        workers = [p.pid for p in __import__("psutil").Process().children()]  # the nannies and their workers
        for command, words in COMMANDS.items():
            r = run([words[0], str(folder), *words[1:], "--scheduler", cluster.scheduler_address, "--format", "csv",
                     "-o", str(out / f"dask_{command}.csv")], cluster_pids=workers)
            rows.append((f"{command}: {len(files)} files, Dask 2 workers", r))
    for command in COMMANDS:
        same = (out / f"dask_{command}.csv").read_bytes() == (out / f"pool_{command}.csv").read_bytes()
        print(f"{command}: Dask output {'identical to' if same else 'DIFFERS from'} the pool's")
    return rows


if __name__ == "__main__":
    main()
