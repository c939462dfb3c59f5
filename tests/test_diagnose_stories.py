"""What diagnose's findings say on top of the tables: totals over every row (not the --rows shown), synchronization
ranked by the GPU idle time it causes (hand-computed on profiles written here), and PyTorch advice only where the
profile shows PyTorch."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diagnose import diagnose

from .conftest import PROFILES

PID = 100
GLOBAL_PID = PID << 24
US = 1_000
LAUNCH, SYNC, COPY = 2, 3, 4


# -- totals over every row -------------------------------------------------------------------------------------

def findings(path, *args) -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["diagnose", str(path), "--format", "json", *map(str, args)])
    assert result.exit_code == 0, result.output
    return {f["rule"]: f for f in json.loads(result.output)["findings"]}


def brute_force(path: Path, rule: str) -> tuple[int, int]:
    """(rows, summed duration ns) of an nsys rule over the whole export, by sqlite3 (nsys' rule definitions)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    if rule == "cuda_api_sync":
        query = ("SELECT count(*), sum(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
                 "JOIN StringIds AS s ON s.id = r.nameId "
                 "WHERE s.value LIKE 'cudaDeviceSynchronize%' OR s.value LIKE 'cudaStreamSynchronize%'")
    else:  # cuda_memcpy_async: async copies from or to pageable memory (kind 0)
        query = ("SELECT count(*), sum(m.end - m.start) FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m "
                 "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = m.correlationId "
                 "AND r.globalTid >> 24 = m.globalPid >> 24 JOIN StringIds AS s ON s.id = r.nameId "
                 "WHERE s.value LIKE 'cudaMemcpy%Async%' AND (m.srcKind = 0 OR m.dstKind = 0)")
    n, total = con.execute(query).fetchone()
    con.close()
    return n, total


@pytest.mark.parametrize("name", ["gpt_train", "gpt_sdpa_train", "copies_streams_graph"])
@pytest.mark.parametrize("rule", ["cuda_api_sync", "cuda_memcpy_async"])
def test_a_findings_totals_count_every_row_not_the_rows_shown(name, rule):
    path = PROFILES / f"{name}.sqlite"
    n, total = brute_force(path, rule)
    assert n > 1
    found = findings(path, "--window", "all", "--rows", 1)[rule]
    assert (found["figures"]["rows"], found["figures"]["shown"], found["figures"]["total_ns"]) == (n, 1, total)
    assert f": {n:,} {'calls' if rule == 'cuda_api_sync' else 'copies'}, {total / 1e6:,.1f} ms in all; 1 shown" \
        in found["summary"]
    every = findings(path, "--window", "all", "--rows", -1)[rule]
    assert every["figures"]["rows"] == every["figures"]["shown"] == n and "shown" not in every["summary"]


NSYS_RULES = ("gpu_gaps", "gpu_time_util", "cuda_memcpy_async", "cuda_memcpy_sync", "cuda_memset_sync", "cuda_api_sync")


@pytest.mark.parametrize("name", ["gpt_train", "copies_streams_graph", "graphs_node"])
def test_every_nsys_rules_finding_counts_the_rows_of_its_whole_table(name):
    """For each of the six rules, the finding of a --rows 1 run counts and sums every row of the rule's whole
    table (--rows -1, the table test_diagnose_oracle checks against nsys analyze), with options that give many
    rows (gaps of 1 ms and more, chunks below 90 % in use)."""
    args = ["--window", "all", "--gap", 1, "--threshold", 90]
    shown = findings(PROFILES / f"{name}.sqlite", *args, "--rows", 1)
    result = CliRunner().invoke(cli, ["diagnose", str(PROFILES / f"{name}.sqlite"), "--format", "json", "--rows", -1,
                                      *map(str, args)])
    tables = json.loads(result.output)["nsys_rules"]
    many = 0
    for rule in NSYS_RULES:
        rows = tables[rule].get("rows", [])
        if not rows:
            assert rule not in shown
            continue
        many += len(rows) > 1
        figures = shown[rule]["figures"]
        assert (figures["rows"], figures["shown"]) == (len(rows), 1), rule
        assert figures["total_ns"] == sum(r["duration_ns"] for r in rows), rule
    assert many >= 2


def test_rows_0_still_gives_the_finding_with_its_totals():
    n, total = brute_force(PROFILES / "gpt_train.sqlite", "cuda_memcpy_async")
    found = findings(PROFILES / "gpt_train.sqlite", "--window", "all", "--rows", 0)["cuda_memcpy_async"]
    assert (found["figures"]["rows"], found["figures"]["shown"], found["at_stake_ns"]) == (n, 0, total)


# -- synchronization: the GPU idle time it causes --------------------------------------------------------------

def write_profile(path: Path, kernels: list[tuple], calls: list[tuple], kernel_name: str = "kernel",
                  copies: list[tuple] = ()) -> Path:
    """kernels: (start, end, corr); calls: (start, end, corr, name id); copies: (start, end, corr, srcKind)."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [
        (1, kernel_name), (LAUNCH, "cudaLaunchKernel_v7000"), (SYNC, "cudaDeviceSynchronize_v3020"),
        (COPY, "cudaMemcpyAsync_v3020")])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT, "
                "streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, 1, 1)",
                    [(s, e, c, GLOBAL_PID) for s, e, c in kernels])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, "
                "nameId INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?)",
                    [(s, e, GLOBAL_PID + PID, c, n) for s, e, c, n in calls])
    if copies:
        con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, contextId INT, "
                    "streamId INT, correlationId INT, globalPid INT, bytes INT, copyKind INT, srcKind INT, "
                    "dstKind INT)")
        con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 8, ?, ?, 1000000, 1, ?, 2)",
                        [(s, e, c, GLOBAL_PID, k) for s, e, c, k in copies])
    con.commit()
    con.close()
    return path


def timed_loop(steps: int) -> tuple[list, list]:
    """A benchmark loop: each step launches 10 kernels of 1 ms (5 us calls, back to back), then synchronizes while
    the GPU runs them; the sync returns 10 us after the last kernel, and the next step's first call comes 40 us
    later (its kernel 3 us after the call)."""
    kernels, calls, corr, t = [], [], 0, 1_000 * US
    for _ in range(steps):
        gpu = t + 5 * US + 3 * US  # the first kernel starts 3 us after its call ends
        for k in range(10):
            corr += 1
            calls.append((t + 5 * US * k, t + 5 * US * (k + 1), corr, LAUNCH))
            kernels.append((gpu + 1_000 * US * k, gpu + 1_000 * US * (k + 1), corr))
        done = gpu + 10_000 * US
        corr += 1
        calls.append((t + 50 * US, done + 10 * US, corr, SYNC))
        t = done + 50 * US  # next step's first call
    return kernels, calls


def test_a_timed_loop_that_syncs_once_per_step_costs_the_gpu_only_the_gap_after_each_sync(tmp_path):
    kernels, calls = timed_loop(20)
    path = write_profile(tmp_path / "loop.sqlite", kernels, calls)
    with nsys_analytics.open(path) as p:
        report = diagnose(p, ("cuda_api_sync", "gpu_utilization", "gpu_starved", "launch_bound"))
    [sync] = [f for f in report.findings if f.rule == "cuda_api_sync"]
    # Blocked: 20 calls from t + 50 us to the GPU's end + 10 us = (8 + 10,000 + 10 - 50) us each.
    assert sync.figures["blocked_ns"] == 20 * 9_968 * US
    # Idle: from the GPU's end to the next step's first kernel, 10 + 40 + 5 + 3 = 58 us, after 19 of the 20 syncs
    # (the last is followed by nothing); each far below the call's length, so all of it is the sync's.
    assert sync.at_stake_ns == sync.figures["gpu_idle_ns"] == 19 * 58 * US
    assert sync.severity == "info" and not [f for f in report.findings if f.severity != "info"]
    assert "GPU idle because of them: 1.1 ms (0.5% of its span)" in sync.summary  # span 20 x 10,008 - 50 us


def test_a_sync_after_every_short_kernel_is_a_warning_charged_with_the_idle_it_causes(tmp_path):
    """Launch a 50 us kernel (5 us call, kernel 3 us later), sync (returns 10 us after it), launch the next."""
    kernels, calls, t = [], [], 1_000 * US
    for i in range(100):
        calls.append((t, t + 5 * US, 2 * i + 1, LAUNCH))
        kernels.append((t + 8 * US, t + 58 * US, 2 * i + 1))
        calls.append((t + 5 * US, t + 68 * US, 2 * i + 2, SYNC))
        t += 68 * US
    path = write_profile(tmp_path / "sync.sqlite", kernels, calls)
    with nsys_analytics.open(path) as p:
        report = diagnose(p)
    top = report.findings[0]
    assert top.rule == "cuda_api_sync" and top.severity == "warning", report.findings
    # Per call: 18 us from its kernel's end to the next kernel (58 -> 76 us), under the call's 63 us. The 3 us
    # before its kernel starts are not the call's: the kernel was launched before it, and starts as late without
    # it. The last call has no kernel after it and returns at the end of the GPU's span: 99 x 18.
    assert top.at_stake_ns == 99 * 18 * US
    assert top.figures["span_ns"] == 99 * 68 * US + 50 * US
    assert top.figures["blocked_ns"] == 100 * 63 * US


def test_a_sync_is_charged_at_most_its_own_length(tmp_path):
    """A 2 us sync on an idle GPU followed by 500 us of CPU work before the next launch: the pause is the CPU's."""
    kernels, calls, t = [], [], 1_000 * US
    for i in range(10):
        calls.append((t, t + 5 * US, 2 * i + 1, LAUNCH))
        kernels.append((t + 8 * US, t + 18 * US, 2 * i + 1))
        calls.append((t + 30 * US, t + 32 * US, 2 * i + 2, SYNC))
        t += 532 * US
    with nsys_analytics.open(write_profile(tmp_path / "cpu.sqlite", kernels, calls)) as p:
        [sync] = diagnose(p, ("cuda_api_sync",)).findings
    # 2 us for each call but the last, which comes after the GPU's last work (outside its span: nothing to delay).
    assert sync.at_stake_ns == 9 * 2 * US and sync.figures["blocked_ns"] == 10 * 2 * US


def brute_force_sync_idle(path: Path) -> tuple[int, int]:
    """(GPU idle caused, blocked time) of the synchronization calls over the whole capture, by brute force: per call
    and device of its process, the time from the later of its start and the last end of the device's operations
    (kernels, copies, memsets, whole graphs; start > 0) that started before it returned, to the first start at or
    after its return, all clipped to the device's span, capped at the call's length."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    ops: dict[tuple[int, int], list] = {}
    for table in ("KERNEL", "MEMCPY", "MEMSET", "GRAPH_TRACE"):
        if f"CUPTI_ACTIVITY_KIND_{table}" in tables:
            for s, e, pid, dev in con.execute(f"SELECT start, end, globalPid >> 24, deviceId "
                                              f"FROM CUPTI_ACTIVITY_KIND_{table} WHERE start > 0"):
                ops.setdefault((pid, dev), []).append((s, e))
    calls = con.execute("SELECT r.start, r.end, r.globalTid >> 24 FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
                        "JOIN StringIds AS s ON s.id = r.nameId WHERE s.value LIKE 'cudaDeviceSynchronize%' "
                        "OR s.value LIKE 'cudaStreamSynchronize%'").fetchall()
    con.close()
    idle = 0
    for s, e, pid in calls:
        for (p, _), intervals in ops.items():
            if p != pid:
                continue
            lo, hi = min(a for a, _ in intervals), max(b for _, b in intervals)
            a, b = min(max(s, lo), hi), min(max(e, lo), hi)
            after = [x for x, _ in intervals if x >= b]
            z = min(after) if after else b
            ran_out = max(y for x, y in intervals if x < b) if any(x < b for x, _ in intervals) else a
            idle += min(max(0, z - max(a, ran_out)), e - s)
    return idle, sum(e - s for s, e, _ in calls)


@pytest.mark.parametrize("name", ["copies_streams_graph", "graphs_whole", "graphs_node", "gpt_train"])
def test_sync_idle_equals_a_brute_force_over_the_export(name):
    path = PROFILES / f"{name}.sqlite"
    idle, blocked = brute_force_sync_idle(path)
    sync = findings(path, "--window", "all", "--rule", "cuda_api_sync")["cuda_api_sync"]
    assert (sync["at_stake_ns"], sync["figures"]["blocked_ns"]) == (idle, blocked)


def test_the_gpt_fixtures_sync_once_per_step_and_that_is_not_the_top_warning():
    for name in ("gpt_train", "gpt_sdpa_train", "gpt_forward", "gpt_train_cols"):
        found = list(findings(PROFILES / f"{name}.sqlite").values())
        warnings = [f["rule"] for f in found if f["severity"] != "info"]
        assert warnings and warnings[0] != "cuda_api_sync", (name, warnings)
        sync = next(f for f in found if f["rule"] == "cuda_api_sync")
        assert sync["at_stake_ns"] <= sync["figures"]["blocked_ns"]


# -- framework advice ------------------------------------------------------------------------------------------

TORCH_WORDS = re.compile(r"torch|pin_memory|PyTorch", re.IGNORECASE)


def torch_free_copy(source: Path, target: Path) -> Path:
    """A copy of a fixture whose strings name no PyTorch: ATen kernels, libtorch/libc10 and autograd threads renamed
    (the names are all the framework check reads)."""
    shutil.copy(source, target)
    con = sqlite3.connect(target)
    for old, new in (("at::native::", "mylib::impl::"), ("libtorch", "libmine"), ("libc10", "libmine"),
                     ("pt_autograd", "worker"), ("torch", "flame")):
        con.execute("UPDATE StringIds SET value = replace(value, ?, ?)", (old, new))
    con.commit()
    con.close()
    return target


def test_pytorch_advice_only_where_the_profile_shows_pytorch(tmp_path):
    torch_run = findings(PROFILES / "gpt_train.sqlite")["launch_bound"]
    assert "torch.compile" in torch_run["fix"]
    plain = findings(torch_free_copy(PROFILES / "gpt_train.sqlite", tmp_path / "plain.sqlite"))
    assert plain["launch_bound"]["summary"] == torch_run["summary"]  # the same finding,
    assert not [f["fix"] for f in plain.values() if TORCH_WORDS.search(f["fix"])]  # no PyTorch advice
    assert "CUDA graph" in plain["launch_bound"]["fix"]


@pytest.mark.parametrize("kernel_name, pytorch", [
    ("my_kernel", False), ("void at::native::vectorized_elementwise_kernel<4, float>(int)", True)])
def test_pin_memory_advice_only_with_pytorch(tmp_path, kernel_name, pytorch):
    kernels = [(1_000 * US + i * 1_000 * US, 1_100 * US + i * 1_000 * US, i + 1) for i in range(10)]
    calls = [(s - 10 * US, s - 5 * US, c, LAUNCH) for s, _, c in kernels]
    copies = [(1_200 * US + i * 1_000 * US, 1_700 * US + i * 1_000 * US, 1_000 + i, 0) for i in range(9)]
    calls += [(s - 10 * US, s, c, COPY) for s, _, c, _ in copies]
    path = write_profile(tmp_path / "p.sqlite", kernels, calls, kernel_name, copies)
    fix = findings(path, "--rule", "copy_bottleneck")["copy_bottleneck"]["fix"]
    assert ("pin_memory=True" in fix) is pytorch and ("cudaHostAlloc" in fix) is not pytorch
    assert "pinned host memory" in fix
