"""What the GPU machine made with `profile`, `instrument()` and `bench` (fixtures/collect/, docs/collect.md),
checked against NVIDIA's own output on the same files: `nsys stats` on the profiles, `ncu --csv --page raw`
on the report."""

from __future__ import annotations

import csv
import lzma
import re
import shutil
from pathlib import Path

import pytest

from nsys_analytics.capabilities.collect.bench import DOMAIN
from nsys_analytics.capabilities.collect.data import ncu_runs, nsys_runs
from nsys_analytics.data.profile import Profile

from .conftest import FIXTURES

COLLECT = FIXTURES / "collect"


def unpacked(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name.removesuffix(".xz")
    with lzma.open(COLLECT / name) as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


def read(name: str) -> list[dict[str, str]]:
    with open(COLLECT / name, newline="") as f:
        return list(csv.DictReader(f))


def test_instrumented_backward_holds_the_backward_kernels_by_nsys_own_rule(tmp_path):
    """instrument() opened `backward` on autograd's thread: nsys' nvtx_kern_sum (kernels launched inside the
    range on its thread) puts 1,220 kernels there, on another thread than `forward`; ours agrees."""
    oracle = [r for r in read("gpt_instrumented_train_nvtx_kern_sum.csv") if r["NVTX Range"] == ":backward"]
    forward = [r for r in read("gpt_instrumented_train_nvtx_kern_sum.csv") if r["NVTX Range"] == ":forward"]
    assert {r["TID"] for r in oracle} != {r["TID"] for r in forward}  # autograd's thread, not the main one
    kernels, total = sum(int(r["Kern Inst"]) for r in oracle), sum(int(r["Total Time (ns)"]) for r in oracle)
    assert (kernels, total) == (1220, 7_444_808)
    with Profile(unpacked("gpt_instrumented_train.sqlite.xz", tmp_path)) as p:
        got = p.sql("SELECT range_tid, count(*), sum(duration_ns) FROM kernel_ranges "
                    "WHERE attribution = 'thread' AND range = ':backward' GROUP BY ALL").rows
    assert got == [(int(oracle[0]["TID"]), kernels, total)]


def test_bench_nsys_runs_equal_nsys_projection(tmp_path):
    """Each run of the nsys sweep (one GEMM; at n=4096 cuBLAS also sets 4 bytes first): gpu_span equals
    nvtx_gpu_proj_trace's Projected Duration of the run's range, gpu_time the one kernel's duration."""
    projected = {}
    for r in read("bench_matmul_nsys_nvtx_gpu_proj_trace.csv"):
        m = re.fullmatch(rf"{DOMAIN}:matmul\[n=(\d+),run=(\d+)\]", r["Name"])
        if m:
            projected[(int(m.group(1)), int(m.group(2)))] = int(r["Projected Duration (ns)"])
    assert len(projected) == 60
    with Profile(unpacked("bench_matmul_nsys.sqlite.xz", tmp_path)) as p:
        runs, params = nsys_runs(p, DOMAIN)
        kernel = dict(p.sql("SELECT r.text, k.duration_ns FROM kernel_ranges AS k JOIN _nvtx_ranges AS r "
                            "USING (range_id) WHERE k.attribution = 'thread' AND r.domain = $d", {"d": DOMAIN}).rows)
    assert params == ["n"] and set(runs["annotation"]) == {"torch"} and set(runs["kernels"]) == {1}
    assert {(int(r.n), int(r.run)): r.gpu_span_ns for r in runs.itertuples()} == projected
    assert {f"matmul[n={r.n},run={r.run}]": r.kernel_time_ns for r in runs.itertuples()} == kernel
    assert sum(projected[k] > kernel[f"matmul[n={k[0]},run={k[1]}]"] for k in projected) == 10  # the n=4096 runs


def test_bench_ncu_runs_equal_ncu_raw_page(tmp_path):
    """The ncu sweep's report: per configuration and run, the value equals ncu's own raw page."""
    rows = read("bench_matmul_ncu_raw.csv")
    assert rows[0]["gpu__time_duration.sum"] == "us"
    key = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"
    oracle = {}
    for r in rows[1:]:
        m = re.search(r"REGISTERED:torch\[n=(\d+),run=(\d+)\]", r[key])
        oracle[(int(m.group(1)), int(m.group(2)))] = float(r["gpu__time_duration.sum"]) * 1000
    runs, unit, params = ncu_runs(unpacked("bench_matmul_ncu.ncu-rep.xz", tmp_path), "gpu__time_duration.sum")
    assert unit == "ns" and params == ["n"] and len(runs) == len(oracle) == 60
    got = {(int(r.n), int(r.run)): r.value for r in runs.itertuples()}
    assert got == pytest.approx(oracle, rel=1e-9)
