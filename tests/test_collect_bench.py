"""`bench`: the sweep's ranges (stub collector), the child process really running the function once per
configuration and run under a stand-in ncu/nsys (tests/fake_tools/), and the long-form frame read back from a
known .ncu-rep, checked against ncu's own raw CSV of that report (fixtures/ncu/matmul_basic_raw.csv)."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import pytest

import nsys_analytics
from nsys_analytics.capabilities.collect import bench_child
from nsys_analytics.capabilities.collect.bench import DOMAIN
from nsys_analytics.core.errors import UsageError

from .conftest import FIXTURES
from .test_collect_annotate import collector, tree  # noqa: F401 - the stub collector fixture
from .test_collect_profile import fake  # noqa: F401 - stand-in tools on PATH
from .test_ncu_fixtures import report_path

RAW = FIXTURES / "ncu" / "matmul_basic_raw.csv"
PUSH_POP = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"


def oracle_sums() -> dict[str, float]:
    """gpu__time_duration.sum (ns) summed per push/pop range name, from ncu's own raw page."""
    sums: dict[str, float] = defaultdict(float)
    with open(RAW, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["gpu__time_duration.sum"] == "us"
    for row in rows[1:]:
        m = re.search(r':REGISTERED:([^"]*)"', row[PUSH_POP])
        if m:
            sums[m.group(1)] += float(row["gpu__time_duration.sum"]) * 1000
    return sums


def test_sweep_ranges_carry_config_and_run(collector):  # noqa: F811
    @nsys_analytics.annotate("torch")
    def inner():
        pass

    def f(n):
        inner()

    bench_child.run_sweep(f, [{"n": 1}, {"n": 2}], runs=2, warmup=1, name="f", domain=DOMAIN)
    assert tree(collector) == [
        "torch", "f[n=1,run=0]", "  torch[n=1,run=0]", "f[n=1,run=1]", "  torch[n=1,run=1]",
        "torch", "f[n=2,run=0]", "  torch[n=2,run=0]", "f[n=2,run=1]", "  torch[n=2,run=1]",
    ]


NOTEBOOK_CELL = """
def matmul(M, N, K):
    with open(CALLS, "a") as f:      # a global of the cell: travels by value with the function
        f.write(f"{M} ")
"""


def cell_function(calls: Path):
    """A function as a notebook cell defines it: module __main__, no source file to import in the child."""
    namespace = {"__name__": "__main__", "CALLS": str(calls)}
    exec(compile(NOTEBOOK_CELL, "<cell>", "exec"), namespace)
    return namespace["matmul"]


def test_ncu_sweep_runs_the_function_in_a_child_and_reads_the_report(fake, tmp_path):  # noqa: F811
    calls = tmp_path / "calls.txt"
    configs = [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024)]
    swept = nsys_analytics.bench(configs=configs, runs=2, normalize_against="matmul", keep=True,
                                 output_dir=tmp_path / "sweep",
                                 derive=lambda ns, M, N, K, **rest: {"tflops": 2 * M * N * K / ns / 1e3})
    env = {"FAKE_NCU_FIXTURE": str(report_path("matmul_basic"))}
    frame = fake.run_python(lambda: swept(cell_function(calls))(), env)
    assert calls.read_text().split() == ["256"] * 3 + ["512"] * 3 + ["1024"] * 3  # 1 warm-up + 2 runs each
    argv = fake.calls()[0]["argv"]
    assert argv[:3] == ["--nvtx", "--nvtx-include", f"regex:{DOMAIN}@.+/"]
    assert argv[argv.index("--metrics") + 1] == "gpu__time_duration.sum"
    assert argv[-3] == "-c" and "from nsys_analytics.capabilities.collect.bench_child import main" in argv[-2]
    assert list(frame.columns[:5]) == ["annotation", "M", "N", "K", "R"]
    assert {"run", "metric", "value", "unit", "relative", "kernels"} <= set(frame.columns)
    time = frame[frame["metric"] == "gpu__time_duration.sum"]
    oracle = oracle_sums()
    got = {f"{r.annotation}[M={r.M},N={r.N},K={r.K}]": r.value for r in time.itertuples() if r.annotation != "softmax"}
    assert got == pytest.approx({k: v for k, v in oracle.items() if not k.startswith("softmax")}, rel=1e-9)
    assert set(time["unit"]) == {"ns"}
    flops = frame[(frame["metric"] == "tflops") & (frame["annotation"] == "matmul") & (frame["M"] == 1024)]
    assert flops["value"].item() == pytest.approx(2 * 1024**3 / oracle["matmul[M=1024,N=1024,K=1024]"] / 1e3)
    bf16 = time[(time["annotation"] == "matmul_bf16") & (time["M"] == 512)]
    assert bf16["relative"].item() == pytest.approx(oracle["matmul_bf16[M=512,N=512,K=512]"]
                                                    / oracle["matmul[M=512,N=512,K=512]"])
    assert frame.reports and all(Path(p).exists() for p in frame.reports)
    png = frame.plot(metric="tflops", path=tmp_path / "tflops.png")
    assert png is not None and (tmp_path / "tflops.png").stat().st_size > 1000
    with pytest.raises(UsageError, match="not a parameter"):
        frame.plot(x="seq")


def test_the_child_imports_this_package_whatever_the_working_folder_holds(fake, tmp_path, monkeypatch):  # noqa: F811
    """A folder with another `nsys_analytics` (a checkout of an older version, say) as the working folder."""
    (tmp_path / "nsys_analytics").mkdir()
    (tmp_path / "nsys_analytics" / "__init__.py").write_text("raise ImportError('the wrong nsys_analytics')\n")
    monkeypatch.chdir(tmp_path)
    calls = tmp_path / "calls.txt"
    swept = nsys_analytics.bench(configs=[(256, 256, 256)], runs=1, warmup=0)
    fake.run_python(lambda: swept(cell_function(calls))(), {"FAKE_NCU_FIXTURE": str(report_path("matmul_basic"))})
    assert calls.read_text().split() == ["256"]


def test_nsys_sweep_without_bench_ranges_says_so(fake, tmp_path):  # noqa: F811
    calls = tmp_path / "calls.txt"
    swept = nsys_analytics.bench(configs=[(1, 1, 1)], tool="nsys")
    with pytest.raises(UsageError, match="no kernel ran inside the benchmark's ranges"):
        fake.run_python(lambda: swept(cell_function(calls))(), {})
    assert calls.read_text().split() == ["1", "1"]
    assert fake.calls()[0]["argv"][:2] == ["profile", "--trace=cuda,nvtx"]


@pytest.mark.parametrize("kwargs, message", [
    ({"tool": "perf"}, "tool='perf'"), ({"configs": []}, "configs is empty"), ({"runs": 0}, "runs must be"),
    ({"configs": [{"run": 1}]}, "may not be called 'run'"), ({"configs": [(1, 2, 3, 4)]}, "takes 3 positional"),
])
def test_bad_settings(kwargs, message):
    with pytest.raises(UsageError, match=message):
        nsys_analytics.bench(**{"configs": [(1, 1, 1)], **kwargs})(lambda M, N, K: None)


def test_nsys_runs_equal_nsys_projection_and_a_brute_force_sum(tmp_path):
    """A real training profile whose three `train_loop` step ranges are renamed as a sweep's runs: each run's
    gpu_span equals nsys' own `nvtx_gpu_proj_trace` Projected Duration, and its kernel time equals a brute-force
    sum over the raw tables (kernels whose launching runtime call lies inside the range, any thread)."""
    import shutil
    import sqlite3

    from nsys_analytics.capabilities.collect.data import nsys_runs
    from nsys_analytics.data.profile import Profile

    from .conftest import ORACLE, PROFILES

    path = tmp_path / "sweep.sqlite"
    shutil.copyfile(PROFILES / "gpt_sdpa_train.sqlite", path)
    renamed = {11: ("train[n=1,run=0]", "train_loop:step_0"), 19: ("train[n=1,run=1]", "train_loop:step_1"),
               27: ("train[n=2,run=0]", "train_loop:step_2")}
    brute = {}
    with sqlite3.connect(path) as con:
        for rowid, (text, _) in renamed.items():
            con.execute("UPDATE NVTX_EVENTS SET text = ?, textId = NULL WHERE rowid = ?", (text, rowid))
            start, end, tid = con.execute("SELECT start, end, globalTid FROM NVTX_EVENTS WHERE rowid = ?",
                                          (rowid,)).fetchone()
            brute[rowid] = con.execute(
                "SELECT count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId "
                "AND r.globalTid >> 24 = k.globalPid >> 24 "
                "WHERE r.start >= ? AND r.end <= ? AND r.globalTid >> 24 = ? >> 24", (start, end, tid)).fetchone()
    with open(ORACLE / "gpt_sdpa_train" / "gpt_sdpa_train_nvtx_gpu_proj_trace.csv", newline="") as f:
        projected = {int(r["RangeId"]): int(r["Projected Duration (ns)"]) for r in csv.DictReader(f)}
    with Profile(path) as profile:
        runs, params = nsys_runs(profile, "train_loop")
    assert params == ["n"]
    assert runs[["annotation", "n", "run"]].values.tolist() == [["train", 1, 0], ["train", 1, 1], ["train", 2, 0]]
    assert runs["gpu_span_ns"].tolist() == [projected[r] for r in renamed]
    assert list(zip(runs["kernels"], runs["kernel_time_ns"])) == [brute[r] for r in renamed]
