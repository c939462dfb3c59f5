"""The heavy commands at 1 M / 3 M / 10 M kernels, cache warm: whole processes, wall and CPU time, peak memory.

    python bench/bench_heavy.py [--sizes 1M,3M,10M] [--runs 1] [--only diagnose,report] [--every] [--no-warmup]

Commands: diagnose, report (a 1 M-kernel forward profile + the training profile), breakdown --by range, nvtx-gpu,
nvtx-kernels --attribution gpu, sql with a long output (every kernel as CSV, streamed), and nvtx-gpu --trace on a
profile with one NVTX range per launch (bench/add_launch_ranges.py, made once from the 1 M profile). Targets
(issue 17): diagnose < 3 s at 3 M and < 5 s at 10 M, report < 5 s at 3 M and < 10 s at 10 M, every command
< 1.5 GiB peak.

Profiles: /tmp/bench/train_x300 (1.06 M kernels), train_x850 (3 M), train_x2830 (10 M) and forward_k1000 when
they exist, else scaled copies of fixtures/profiles/gpt_train.sqlite in bench-data/. The cache goes to
bench-data/cache-heavy (or $NSYS_ANALYTICS_CACHE): each command runs once unmeasured to build what it reads, then
--runs measured times (median wall and CPU, largest peak). CPU is user + system time of the process; the load
average is printed, since the machine may be shared. `--every` adds every other command that reads a whole
profile (issue 17: every command < 1.5 GiB at 10 M kernels); `--no-warmup` skips the unmeasured first run (for a
cache already built by an earlier pass).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, DATA, count_kernels, scaled_profile

BENCH = Path("/tmp/bench")
SIZES = {"1M": ("train_x300.sqlite", 1_000_000), "3M": ("train_x850.sqlite", 3_000_000),
         "10M": ("train_x2830.sqlite", 10_000_000)}
FORWARD = BENCH / "forward_k1000.sqlite"
LIMIT_MIB = 1536


def profile_for(size: str) -> Path:
    name, kernels = SIZES[size]
    return BENCH / name if (BENCH / name).exists() else scaled_profile(kernels)


def forward_profile() -> Path:
    return FORWARD if FORWARD.exists() else scaled_profile(1_000_000)


def launch_ranges_profile(source: Path) -> Path:
    """`source` with one NVTX range around every launching call (made once, in bench-data/)."""
    target = DATA / f"{source.stem}_launch_ranges.sqlite"
    if not target.exists():
        DATA.mkdir(exist_ok=True)
        print(f"making {target.name} (one NVTX range per launch) ...", flush=True)
        subprocess.run([sys.executable, str(Path(__file__).parent / "add_launch_ranges.py"), str(source),
                        str(target)], check=True)
    return target


def commands(profile: Path, size: str) -> dict[str, list[str]]:
    p = str(profile)
    cmds = {
        "diagnose": ["diagnose", p, "--format", "json", "-o", "/dev/null"],
        "report --forward F --train T": ["report", "--forward", str(forward_profile()), "--train", p,
                                         "-o", "/dev/null"],
        "breakdown --by range": ["breakdown", p, "--by", "range", "-o", "/dev/null"],
        "nvtx-gpu": ["nvtx-gpu", p, "-o", "/dev/null"],
        "nvtx-kernels --attribution gpu": ["nvtx-kernels", p, "--attribution", "gpu", "-o", "/dev/null"],
        "sql every kernel (csv)": ["sql", p, "SELECT * FROM kernels", "--format", "csv", "-o", "/dev/null"],
    }
    if size == "1M":
        ranges = str(launch_ranges_profile(profile))
        cmds["nvtx-gpu --trace (1 range per launch)"] = ["nvtx-gpu", ranges, "--trace", "--format", "csv",
                                                         "-o", "/dev/null"]
    return cmds


def every_other_command(profile: Path, out: Path) -> dict[str, list[str]]:
    """The remaining commands that read a whole profile, writing into `out` where they need a file."""
    p = str(profile)
    return {
        "kernels": ["kernels", p],
        "info": ["info", p],
        "nvtx": ["nvtx", p],
        "nvtx-kernels": ["nvtx-kernels", p],
        "classify": ["classify", p],
        "breakdown": ["breakdown", p],
        "attention": ["attention", p],
        "nccl": ["nccl", p],
        "ranks": ["ranks", p],
        "timeline (whole profile)": ["timeline", p, "-o", str(out / "timeline.png")],
        "export --to perfetto (whole profile)": ["export", p, "--to", "perfetto", "-o", str(out / "trace.json.gz")],
        "export --to parquet": ["export", p, "--to", "parquet", "-o", str(out / "parquet")],
        "html": ["html", p, "-o", str(out / "report.html")],
        "runs add": ["runs", "add", "--db", f"sqlite:///{out / 'runs.db'}", p],
        "diff (the profile with itself)": ["diff", p, p],
    }


def run(args: list[str]) -> dict:
    """One whole process: wall, user+system CPU (s) and peak RSS (MiB) from wait4."""
    t0 = time.perf_counter()
    child = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    err = child.stderr.read().decode(errors="replace").strip() if child.stderr else ""
    if status != 0:
        print(f"  FAILED ({status}): {' '.join(args)}: {err.splitlines()[-1] if err else ''}", flush=True)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024,
            "ok": status == 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1M,3M,10M")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", help="comma-separated command labels (prefix match)")
    parser.add_argument("--every", action="store_true", help="also every other command that reads a whole profile")
    parser.add_argument("--no-warmup", action="store_true", help="no unmeasured first run (cache already built)")
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="heavy-out-", dir=BENCH if BENCH.is_dir() else None))
    os.environ.setdefault("NSYS_ANALYTICS_CACHE", str(DATA / "cache-heavy"))
    print(f"cache: {os.environ['NSYS_ANALYTICS_CACHE']}; load average at start: {os.getloadavg()}")
    print("| command | kernels | wall (s) | CPU (s) | peak (MiB) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for size in args.sizes.split(","):
        profile = profile_for(size)
        kernels = count_kernels(profile)
        cmds = commands(profile, size) | (every_other_command(profile, out) if args.every else {})
        for label, cmd in cmds.items():
            if args.only and not any(label.startswith(o) for o in args.only.split(",")):
                continue
            if not args.no_warmup:
                run(cmd)  # builds what the command reads into the cache (not measured)
            results = [run(cmd) for _ in range(args.runs)]
            wall = statistics.median(r["wall_s"] for r in results)
            cpu = statistics.median(r["cpu_s"] for r in results)
            peak = max(r["peak_mib"] for r in results)
            flag = " (over 1.5 GiB)" if peak > LIMIT_MIB else ""
            print(f"| {label} | {kernels / 1e6:.2f} M | {wall:.2f} | {cpu:.2f} | {peak:.0f}{flag} |", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
