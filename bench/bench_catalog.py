"""Benchmark `diff` and the run catalog (`runs add|list|diff|trend`) on >= 1 M-kernel profiles.

    python bench/bench_catalog.py [--base A.sqlite --new B.sqlite] [--runs 1000]

Goals (issue 14): `runs add` of a 1 M-kernel profile within 1.5x the wall time of `kernels` on it; `diff` of two
1 M-kernel profiles < 2 s; `runs list/diff/trend` on a catalog of 1,000 runs < 0.5 s, all whole processes.
Default profiles: gpt_train and gpt_sdpa_train replicated to >= 1 M kernels (bench-data/, made once).
The 1,000-run catalog is made in one process from the summaries of the six fixtures (each summarized once), stored
1,000 times through the same `add_run` as `runs add`, each time under a different content hash and tags
(branch=b0..b4, i=N): every run is a real set of rows, only the hashing and DuckDB queries are skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, ROOT, count_kernels, scaled_profile  # noqa: E402
from measure import measure as measure_wall  # noqa: E402


def measure(cmd: list[str]) -> dict:
    """measure.py's wall time, CPU time (user + system of the command's process tree: on a shared machine it moves
    less with other jobs' load than the wall time does) and peak memory."""
    return dict(measure_wall(cmd))


def best_of(cmd: list[str], runs: int = 3) -> dict:
    return _median([measure(cmd) for _ in range(runs)])


def add_against_kernels(profile: Path, out: Path, runs: int = 5) -> tuple[dict, dict, dict]:
    """`kernels` and `runs add` (into a new catalog each time: a real add, not the no-op of a known profile),
    run in turns so that a change of load on a shared machine hits both alike, after one untimed run of each:
    both then find in the cache folder what they read (`kernels` the per-name statistics, `runs add` the summary
    and the file's sha256). The first timed add finds neither the summary nor the digest (removed first): it
    summarizes from the columnar cache and hashes the file, as the first add after a `kernels` does; the others
    read them back (diff/memo.py, cache/digest.py)."""
    measure([*CLI, "kernels", str(profile), "--format", "csv", "-o", str(out / "k.csv")])
    measure([*CLI, "runs", "add", str(profile), "--db", str(Path(tempfile.mkdtemp()) / "runs.db")])
    kernels, adds = [], []
    for i in range(runs):
        kernels.append(measure([*CLI, "kernels", str(profile), "--format", "csv", "-o", str(out / "k.csv")]))
        if i == 0:
            forget_remembered(profile)
        db = Path(tempfile.mkdtemp()) / "runs.db"
        adds.append(measure([*CLI, "runs", "add", str(profile), "--db", str(db)]))
    return _median(kernels), adds[0], _median(adds[1:])


def forget_remembered(profile: Path) -> None:
    """Remove the sha256 and the summaries the cache folder remembers for this file (only those)."""
    sys.path.insert(0, str(ROOT))
    from nsys_analytics.data.cache.digest import SALT
    from nsys_analytics.data.cache.folder import cache_dir
    from nsys_analytics.data.cache.identity import identity, path_prefix
    from nsys_analytics.data.cache.memo import forget

    (cache_dir() / "digests" / f"{identity(profile, SALT)}.sha256").unlink(missing_ok=True)
    forget(path_prefix(profile))


def _median(results: list[dict]) -> dict:
    return {"wall_s": statistics.median(r["wall_s"] for r in results),
            "cpu_s": statistics.median(r["cpu_s"] for r in results),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in results)}


def make_catalog(db: Path, n: int) -> float:
    """`n` runs from the fixtures' summaries (see the module doc); returns seconds per add."""
    sys.path.insert(0, str(ROOT))
    from nsys_analytics.capabilities.catalog.add import summarize_run
    from nsys_analytics.capabilities.catalog.connect import Catalog
    from nsys_analytics.capabilities.catalog.data import add_run
    from nsys_analytics.capabilities.categories import load_rules

    rules = load_rules()
    fixtures = sorted((ROOT / "fixtures" / "profiles").glob("*.sqlite"))
    summaries = [summarize_run([str(p)], rules, "process")[0] for p in fixtures]
    catalog = Catalog(str(db))
    t0 = time.perf_counter()
    for i in range(n):
        base = summaries[i % len(summaries)]
        run = [replace(s, file_hash=hashlib.sha256(f"{s.file_hash}-{i}".encode()).hexdigest()) for s in base]
        add_run(catalog, run, {"branch": f"b{i % 5}", "i": str(i)})
    return (time.perf_counter() - t0) / n


def in_process(db: Path) -> str:
    """Seconds of the catalog work itself (no start-up): list, a diff of two stored runs, a trend."""
    from nsys_analytics.capabilities.catalog.connect import Catalog
    from nsys_analytics.capabilities.catalog.data import list_runs, load_run, metric_series
    from nsys_analytics.capabilities.diff.report import build_diff

    catalog = Catalog(str(db))
    t0 = time.perf_counter()
    runs = list_runs(catalog, limit=50)
    t1 = time.perf_counter()
    build_diff(load_run(catalog, 10), load_run(catalog, 20))
    t2 = time.perf_counter()
    ids = [r["id"] for r in list_runs(catalog, limit=1000)]
    metric_series(catalog, "category", "matmul", ids)
    t3 = time.perf_counter()
    return (f"list {t1 - t0:.3f} s ({len(runs)} rows), load two runs + diff {t2 - t1:.3f} s, "
            f"trend category:matmul over {len(ids)} runs {t3 - t2:.3f} s")


def row(name: str, r: dict, goal: str = "") -> None:
    print(f"{name:<52} {r['wall_s']:>8.2f} {r['cpu_s']:>8.2f} {r['peak_rss_mb']:>9.0f}  {goal}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="a >= 1 M-kernel profile (default: gpt_train scaled)")
    parser.add_argument("--new", type=Path, help="another one (default: gpt_sdpa_train scaled)")
    parser.add_argument("--runs", type=int, default=1000, help="runs in the catalog benchmark")
    args = parser.parse_args()
    fixtures = ROOT / "fixtures" / "profiles"
    base = args.base or scaled_profile(1_000_000, fixtures / "gpt_train.sqlite")
    new = args.new or scaled_profile(1_000_000, fixtures / "gpt_sdpa_train.sqlite")
    for p in (base, new):
        print(f"profile: {p} ({count_kernels(p):,} kernels, {p.stat().st_size / 1e6:,.0f} MB)")
    out = Path(tempfile.mkdtemp())
    compile_package()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    at_exit_load()
    print(f"\n{'command (whole process, median of 3-5)':<52} {'wall (s)':>8} {'cpu (s)':>8} {'peak MiB':>9}")
    kernels, first, add = add_against_kernels(base, out)
    row("kernels BASE", kernels)
    for name, r in (("runs add BASE, first after kernels (summary, hash)", first),
                    ("runs add BASE, summary remembered (median of 4)", add)):
        row(name, r, f"{r['wall_s'] / kernels['wall_s']:.2f}x kernels wall, {r['cpu_s'] / kernels['cpu_s']:.2f}x "
            "cpu (goal <= 1.5x)")
    row("runs add BASE --attribution process (one run)", fresh_adds_opt(base, ["--attribution", "process"]))
    diff = [*CLI, "diff", str(base), str(new), "--format", "csv", "-o", str(out / "d.csv")]
    for p in (base, new):
        forget_remembered(p)
    row("diff BASE NEW, summaries computed (auto: none > 300 k)", measure(diff), "goal < 2 s")
    row("diff BASE NEW, summaries remembered", best_of(diff), "goal < 2 s")
    row("diff BASE NEW --attribution process (one run)",
        _median([measure([*CLI, "diff", str(base), str(new), "--attribution", "process", "--format", "csv",
                          "-o", str(out / "d2.csv")])]))
    db = out / "catalog" / "runs.db"
    per_add = make_catalog(db, args.runs)
    print(f"\ncatalog of {args.runs:,} runs ({db.stat().st_size / 1e6:,.1f} MB SQLite): {per_add * 1e3:.1f} ms "
          "per add in one process")
    print(f"in one process: {in_process(db)}")
    row("nsys-analytics --help", best_of([*CLI, "--help"]), "goal < 0.2 s")
    row("start-up floor: nsys-analytics --version", best_of([*CLI, "--version"]))
    row("start-up floor: python -c 'import sqlalchemy'", best_of([sys.executable, "-c", "import sqlalchemy"]))
    for name, extra in [("runs list", ["list"]), ("runs list --tag branch=b1", ["list", "--tag", "branch=b1"]),
                        ("runs show 500", ["show", "500"]),
                        ("runs diff 10 20", ["diff", "10", "20"]),
                        ("runs trend --metric step_time", ["trend", "--metric", "step_time"]),
                        ("runs trend --metric category:matmul", ["trend", "--metric", "category:matmul"]),
                        ("runs trend --metric kernel:Kernel2", ["trend", "--metric", "kernel:Kernel2"]),
                        ("runs trend --metric range:forward", ["trend", "--metric", "range:forward"])]:
        row(name, best_of([*CLI, "runs", *extra, "--db", str(db), "-o", str(out / "r.txt")]), "goal < 0.5 s")


def compile_package() -> None:
    """Byte-compile nsys_analytics first, as `pip install` does: an editable checkout run with
    PYTHONDONTWRITEBYTECODE=1 compiles every module from source at each start (0.05-0.1 s of a catalog command)."""
    import subprocess

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "nsys_analytics")], check=True)


def at_exit_load() -> None:
    import atexit

    atexit.register(lambda: print(f"\nload average at the end {os.getloadavg()[0]:.1f}"))


def fresh_adds_opt(profile: Path, options: list[str]) -> dict:
    db = Path(tempfile.mkdtemp()) / "runs.db"
    return _median([measure([*CLI, "runs", "add", str(profile), *options, "--db", str(db)])])


if __name__ == "__main__":
    main()
