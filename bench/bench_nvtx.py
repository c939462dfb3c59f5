"""Benchmark the NVTX reports against nsys 2022.4 on 0.25, 0.5, 1 and 2 M kernels (issue 3's speed goals).

    python bench/bench_nvtx.py [--runs 3] [--sizes 250,500,1061,2000] [--nsys-gpuproj-timeout 0]
    python bench/bench_nvtx.py --profile FILE.sqlite   # one given profile instead (e.g. bench/add_launch_ranges.py)

Profiles: /tmp/bench/train_k250.sqlite, train_k500, train_x300 (1.06 M kernels), train_k2000 (cs336_small_train
scaled along the time axis, see bench/README.md) when they exist, else scaled copies of fixtures/profiles/
gpt_train.sqlite made in bench-data/. For each profile it prints:

- attribution: seconds of query to place every kernel in its ranges (nsys' thread rule, inclusive), on an open
  profile in a fresh process (best of --runs);
- whole processes (median wall time, largest peak RSS of --runs): `nsys-analytics nvtx-kernels` (also with
  `--attribution process` and `gpu`), `nvtx-gpu` (also `--trace`), and `nsys stats --report nvtxkernsum`
  (2022.4) with the speed-up;
- with --nsys-gpuproj-timeout S > 0, also nsys 2022.4's nvtxgpuproj, stopped after S seconds.
Goals: attribution <= 1 s; nvtx-kernels >= 10x faster than nsys; nvtx-gpu < 5 s; peak memory < 500 MB;
time linear in events (compare the per-million-kernel column).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, best_of, count_kernels, nsys_2022, scaled_profile

PREPARED = {250: "train_k250", 500: "train_k500", 1061: "train_x300", 2000: "train_k2000"}
ATTRIBUTION = """
import sys, time, json, nsys_analytics
best = None
with nsys_analytics.open(sys.argv[1]) as p:
    for _ in range(int(sys.argv[2])):
        t0 = time.perf_counter()
        p.sql("SELECT count(*), count(range_id) FROM nvtx_attributed_ops('thread', false) WHERE kind = 'kernel'")
        best = min(best or 1e9, time.perf_counter() - t0)
print(json.dumps({"attribution_s": best}))
"""


def profile_for(size_k: int) -> Path:
    """The prepared scaled profile of about `size_k` thousand kernels, or a scaled gpt_train copy."""
    prepared = Path("/tmp/bench") / f"{PREPARED.get(size_k, f'train_k{size_k}')}.sqlite"
    return prepared if prepared.exists() else scaled_profile(size_k * 1000)


def attribution_seconds(profile: Path, runs: int) -> float:
    """Best query time of the thread-mode attribution of all kernels, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", ATTRIBUTION, str(profile), str(runs)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["attribution_s"]


def ours(profile: Path, runs: int) -> dict[str, dict]:
    """Whole-process wall time and peak memory of our NVTX commands."""
    commands = {
        "nvtx-kernels": ["nvtx-kernels"],
        "nvtx-kernels --attribution process": ["nvtx-kernels", "--attribution", "process"],
        "nvtx-kernels --attribution gpu": ["nvtx-kernels", "--attribution", "gpu"],
        "nvtx-gpu": ["nvtx-gpu"],
        "nvtx-gpu --trace": ["nvtx-gpu", "--trace"],
    }
    return {label: best_of([*CLI, cmd[0], str(profile), *cmd[1:], "--format", "csv"], runs)
            for label, cmd in commands.items()}


def nsys_report(nsys: str, profile: Path, report: str, runs: int, timeout: float | None = None) -> dict | None:
    """nsys 2022.4 `stats --report` as a whole process; None when it ran past `timeout` seconds."""
    cmd = [nsys, "stats", "--report", report, "--format", "csv", "-o", f"/tmp/bench_nvtx_{report}",
           "--force-overwrite", "true", str(profile)]
    if timeout:
        cmd = ["timeout", str(timeout), *cmd]
    try:
        return best_of(cmd, runs)
    except subprocess.CalledProcessError:
        return None


def print_row(kernels: int, label: str, figures: dict, reference: dict | None = None) -> None:
    wall, rss = figures["wall_s"], figures["peak_rss_mb"]
    speedup = f"{reference['wall_s'] / wall:5.1f}x" if reference else ""
    per_m = wall / (kernels / 1e6)
    print(f"{kernels / 1e6:6.2f} M  {label:42s} {wall:8.2f} s  {per_m:6.2f} s/M  {rss:7.0f} MiB  {speedup}",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median wall, max memory)")
    parser.add_argument("--sizes", default="250,500,1061,2000", help="thousands of kernels, comma-separated")
    parser.add_argument("--profile", type=Path, help="measure this profile instead of the scaled sizes")
    parser.add_argument("--nsys-gpuproj-timeout", type=float, default=0,
                        help="also run nsys 2022.4 nvtxgpuproj, stopped after this many seconds (0: skip)")
    args = parser.parse_args(argv)
    nsys = nsys_2022()
    if nsys is None:
        print("nsys 2022.4 not found (bash bench/install_nsys_2022.sh): our figures only", flush=True)
    print(f"{'kernels':>8s}  {'what':42s} {'wall':>10s}  {'per M':>8s}  {'peak RSS':>11s}  vs nsys 2022.4")
    profiles = [args.profile] if args.profile else [profile_for(int(s)) for s in args.sizes.split(",")]
    for profile in profiles:
        kernels = count_kernels(profile)
        reference = nsys_report(nsys, profile, "nvtxkernsum", args.runs) if nsys else None
        seconds = attribution_seconds(profile, args.runs)
        print(f"{kernels / 1e6:6.2f} M  {'attribution query (thread, all kernels)':42s} {seconds:8.2f} s  "
              f"{seconds / (kernels / 1e6):6.2f} s/M", flush=True)
        for label, figures in ours(profile, args.runs).items():
            print_row(kernels, label, figures, reference if label == "nvtx-kernels" else None)
        if reference:
            print_row(kernels, "nsys 2022.4 stats --report nvtxkernsum", reference)
        if nsys and args.nsys_gpuproj_timeout:
            gpuproj = nsys_report(nsys, profile, "nvtxgpuproj", 1, args.nsys_gpuproj_timeout)
            if gpuproj:
                print_row(kernels, "nsys 2022.4 stats --report nvtxgpuproj", gpuproj)
            else:
                print(f"{kernels / 1e6:6.2f} M  nsys 2022.4 nvtxgpuproj: not done after {args.nsys_gpuproj_timeout:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
