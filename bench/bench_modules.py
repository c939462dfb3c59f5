"""Benchmark `modules` (issue 28's speed goal: warm < 1 s and < 1 GiB on a 1 M-kernel emit_nvtx profile).

    python bench/bench_modules.py [--runs 3] [--kernels 1000000]

Profiles: the two GPU fixtures of fixtures/modules/ (a 4-block GPT under emit_nvtx(record_shapes=True) with module
ranges, 2,522 kernels and 13,876 NVTX ranges a capture; and with instrument(layers=True)), scaled along the time
axis to at least --kernels kernels in bench-data/ (bench/scale_profile.py). For each, in a cache folder of its own
that starts empty:

- first: the first `modules` (builds the columnar cache parts it reads and remembers the attribution);
- warm: `modules` again (median of --runs), and `modules --depth 2` (another fold of the remembered attribution);
- peak RSS of each (the largest process);
- beside them, where nsys 2022.4 is installed (bench/install_nsys_2022.sh), `nsys stats --report nvtxkernsum` on
  the same file: NVIDIA's nearest report (kernels per NVTX range; nsys has no per-module report).
Goal: warm < 1 s and < 1 GiB.
"""

from __future__ import annotations

import argparse
import lzma
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CLI, DATA, ROOT, count_kernels, nsys_2022, scaled_profile
from measure import measure

FIXTURES = ROOT / "fixtures" / "modules"
SOURCES = {"emit_nvtx": "modules_emit_nvtx", "instrument": "modules_instrument"}
GOAL_S, GOAL_MIB = 1.0, 1024


def unpacked(name: str) -> Path:
    target = DATA / f"{name}.sqlite"
    if not target.exists():
        DATA.mkdir(exist_ok=True)
        with lzma.open(FIXTURES / f"{name}.sqlite.xz") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 22)
    return target


def timed(cmd: list[str], env: dict, runs: int = 1) -> dict:
    results = []
    old = dict(os.environ)
    os.environ.update(env)
    try:
        results = [measure(cmd) for _ in range(runs)]
    finally:
        os.environ.clear()
        os.environ.update(old)
    return {"wall_s": statistics.median(r["wall_s"] for r in results),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in results)}


def bench(profile: Path, runs: int) -> None:
    cache = Path(tempfile.mkdtemp(prefix="bench-modules-cache-"))
    env = {"NSYS_ANALYTICS_CACHE": str(cache)}
    cmd = [*CLI, "modules", str(profile), "--format", "csv"]
    try:
        first = timed(cmd, env)
        warm = timed(cmd, env, runs)
        folded = timed([*cmd, "--depth", "2"], env, runs)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    ok = warm["wall_s"] < GOAL_S and warm["peak_rss_mb"] < GOAL_MIB
    print(f"  modules, first (empty cache)   {first['wall_s']:7.2f} s  {first['peak_rss_mb']:7.0f} MiB")
    print(f"  modules, warm                  {warm['wall_s']:7.2f} s  {warm['peak_rss_mb']:7.0f} MiB"
          f"   goal < {GOAL_S:.0f} s, < {GOAL_MIB} MiB: {'met' if ok else 'NOT met'}")
    print(f"  modules --depth 2, warm        {folded['wall_s']:7.2f} s  {folded['peak_rss_mb']:7.0f} MiB")
    nsys = nsys_2022()
    if nsys:
        ref = timed([nsys, "stats", "--report", "nvtxkernsum", "--format", "csv", "-o", "/tmp/bench_modules_nvtx",
                     "--force-overwrite", "true", str(profile)], {})
        print(f"  nsys 2022.4 nvtxkernsum        {ref['wall_s']:7.2f} s  {ref['peak_rss_mb']:7.0f} MiB"
              "   (NVIDIA's nearest report; warm modules is "
              f"{ref['wall_s'] / warm['wall_s']:.0f}x faster)")
    else:
        print("  nsys 2022.4: not installed (bench/install_nsys_2022.sh), no reference")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kernels", type=int, default=1_000_000)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"modules on profiles of >= {args.kernels:,} kernels ({os.cpu_count()} cores, load {load:.1f})")
    for label, name in SOURCES.items():
        profile = scaled_profile(args.kernels, unpacked(name))
        size_mb = profile.stat().st_size / 2**20
        print(f"{label}: {profile.name}, {count_kernels(profile):,} kernels, {size_mb:,.0f} MiB")
        bench(profile, args.runs)


if __name__ == "__main__":
    main()
