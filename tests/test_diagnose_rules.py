"""The beyond-nsys rules on small profiles written by the tests: each fires where it should and not elsewhere."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diagnose import diagnose, launch_wait

PID = 100
GLOBAL_PID = PID << 24
US = 1_000
STRINGS = {1: "kernel", 2: "cudaLaunchKernel_v7000", 3: "cudaMemcpyAsync_v3020"}


def write_profile(path: Path, kernels: list[tuple], calls: list[tuple], copies: list[tuple] = ()) -> Path:
    """kernels: (start, end, stream, corr); calls: (start, end, corr, name id); copies: (start, end, stream,
    corr, copyKind, srcKind, dstKind)."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", STRINGS.items())
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT, "
                "streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, ?, 1, 1)",
                    [(s, e, st, c, GLOBAL_PID) for s, e, st, c in kernels])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, "
                "nameId INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?)",
                    [(s, e, GLOBAL_PID + PID, c, n) for s, e, c, n in calls])
    if copies:
        con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, contextId INT, "
                    "streamId INT, correlationId INT, globalPid INT, bytes INT, copyKind INT, srcKind INT, "
                    "dstKind INT)")
        con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, ?, ?, ?, 1000000, ?, ?, ?)",
                        [(s, e, st, c, GLOBAL_PID, k, sk, dk) for s, e, st, c, k, sk, dk in copies])
    con.commit()
    con.close()
    return path


def loop(n: int, kernel_ns: int, launch_ns: int, period_ns: int, early_launch: bool = False):
    """n kernels every period_ns; each launched by a call of launch_ns, just before it or all at time 1 us."""
    kernels, calls = [], []
    for i in range(n):
        start = 1_000 * US + i * period_ns
        call_start = US + i * (launch_ns + 10) if early_launch else start - launch_ns - 500
        kernels.append((start, start + kernel_ns, 7, i + 1))
        calls.append((call_start, call_start + launch_ns, i + 1, 2))
    return kernels, calls


def rules_fired(path: Path, rule: str) -> list:
    with nsys_analytics.open(path) as p:
        return diagnose(p, (rule,)).findings


def test_launch_bound_fires_on_tiny_kernels(tmp_path):
    """Each kernel after the first waits 4 us for its launch (6 us apart, 2 us long); none was queued, so no
    spacing of the GPU's own is taken off. The launch calls outlast the kernels by 3 us each."""
    kernels, calls = loop(300, kernel_ns=2 * US, launch_ns=5 * US, period_ns=6 * US)
    [finding] = rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls), "launch_bound")
    assert finding.severity == "error"
    assert finding.figures["shorter_than_launch"] == 300
    assert finding.figures["launch_excess_ns"] == 300 * 3 * US
    assert finding.at_stake_ns == finding.figures["gpu_wait_ns"] == 299 * 4 * US
    assert "the GPU sits idle 1.2 ms before them (their launch calls outlast them by 0.9 ms)" in finding.summary


def test_launch_bound_is_info_when_the_tiny_kernels_were_queued(tmp_path):
    """Every launch call returned long before its kernel ran: the 4 us between kernels is the GPU's own spacing,
    so it waits for no launch, however much longer the calls are than the kernels."""
    kernels, calls = loop(300, kernel_ns=2 * US, launch_ns=5 * US, period_ns=6 * US, early_launch=True)
    [finding] = rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls), "launch_bound")
    assert finding.severity == "info" and finding.at_stake_ns == 0
    assert finding.figures["queued_spacing_ns"] == 4 * US
    assert "so it barely waits for them" in finding.summary


@pytest.mark.parametrize("slice_rows", [None, 7])
def test_launch_bound_counts_the_wait_beyond_the_queued_spacing_up_to_the_starved_gaps(tmp_path, monkeypatch,
                                                                                       slice_rows):
    """101 queued kernels 1 us apart (the GPU's spacing: 1 us), then 300 launched one by one 4 us apart (3 us each
    beyond the spacing), but a copy fills one of those gaps, then 10 after 50 us each (the host elsewhere:
    gpu_starved's gaps, from 20 us on). In slices of 7 operations the running end carries from slice to slice."""
    if slice_rows:  # slices are cut where the cache stores _range_ops
        monkeypatch.setattr(launch_wait, "SLICE_ROWS", slice_rows)
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    kernels, calls, copies, start = [], [], [], 1_000 * US
    for i in range(411):
        if i:
            start += 2 * US + (1 * US if i <= 100 else 4 * US if i <= 400 else 50 * US)
        call_end = 10 * US + i * 10 if i <= 100 else start - 500  # the first 101 launched long before
        kernels.append((start, start + 2 * US, 7, i + 1))
        calls.append((call_end - 5 * US, call_end, i + 1, 2))
        if i == 200:  # a pinned copy on another stream from the previous kernel's end to this one's start
            copies.append((start - 4 * US, start, 8, 1000, 1, 1, 2))
            calls.append((start - 6 * US, start - 5 * US, 1000, 3))
    [finding] = rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls, copies), "launch_bound")
    assert finding.figures["queued_spacing_ns"] == 1 * US
    assert finding.at_stake_ns == 299 * 3 * US
    # its worst windows are where the GPU waits, among the 300, not where the launch calls outlast their kernels
    # most densely (the queued 101, 3 us apart)
    assert len(finding.windows) == 3
    assert all(kernels[101][0] - 4 * US < end and start < kernels[400][1] for start, end in finding.windows)


def test_launch_bound_silent_on_long_kernels(tmp_path):
    kernels, calls = loop(300, kernel_ns=200 * US, launch_ns=5 * US, period_ns=201 * US)
    assert rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls), "launch_bound") == []


def test_gpu_starved_fires_when_launches_come_late(tmp_path):
    kernels, calls = loop(50, kernel_ns=100 * US, launch_ns=5 * US, period_ns=300 * US)
    [finding] = rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls), "gpu_starved")
    assert finding.figures["starved_gaps"] == 49
    assert finding.figures["starved_ns"] == 49 * 200 * US
    assert finding.figures["pending_ns"] == 0


def test_gpu_starved_silent_when_launches_are_queued(tmp_path):
    kernels, calls = loop(50, kernel_ns=100 * US, launch_ns=5 * US, period_ns=300 * US, early_launch=True)
    assert rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls), "gpu_starved") == []


def test_copy_bottleneck_fires_on_pageable_copies_alone(tmp_path):
    kernels, calls = loop(10, kernel_ns=100 * US, launch_ns=5 * US, period_ns=1000 * US)
    copies = [(1_200 * US + i * 1000 * US, 1_700 * US + i * 1000 * US, 8, 1000 + i, 1, 0, 2) for i in range(9)]
    calls += [(c[0] - 10 * US, c[0], c[3], 3) for c in copies]
    [finding] = rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls, copies), "copy_bottleneck")
    assert finding.figures["overlap_ns"] == 0
    assert finding.figures["pageable_ns"] == finding.figures["copy_ns"] == 9 * 500 * US


def test_copy_bottleneck_silent_when_pinned_copies_overlap_kernels(tmp_path):
    kernels, calls = loop(10, kernel_ns=900 * US, launch_ns=5 * US, period_ns=1000 * US)
    copies = [(1_100 * US + i * 1000 * US, 1_600 * US + i * 1000 * US, 8, 1000 + i, 1, 1, 2) for i in range(9)]
    calls += [(c[0] - 10 * US, c[0], c[3], 3) for c in copies]
    assert rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls, copies), "copy_bottleneck") == []


def test_gpu_utilization_counts_concurrent_streams_once(tmp_path):
    kernels, calls = loop(20, kernel_ns=100 * US, launch_ns=5 * US, period_ns=1000 * US)
    kernels += [(s, e, 9, c + 100) for s, e, _, c in kernels]  # the same work again on a second stream
    [finding] = rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls), "gpu_utilization")
    assert finding.figures["busy_ns"] == 20 * 100 * US


def test_gpu_utilization_silent_on_a_busy_gpu(tmp_path):
    kernels, calls = loop(20, kernel_ns=990 * US, launch_ns=5 * US, period_ns=1000 * US)
    assert rules_fired(write_profile(tmp_path / "p.sqlite", kernels, calls), "gpu_utilization") == []


def test_missing_copies_are_skipped_with_the_option_that_captures_them(tmp_path):
    kernels, calls = loop(5, kernel_ns=100 * US, launch_ns=5 * US, period_ns=300 * US)
    path = write_profile(tmp_path / "p.sqlite", kernels, calls)
    result = CliRunner().invoke(cli, ["diagnose", str(path), "--rule", "cuda_memcpy_async"])
    assert result.exit_code == 0
    assert "SKIPPED: cuda_memcpy_async:" in result.output and "--trace=cuda" in result.output


def test_fail_on_sets_the_exit_code_and_json_lists_findings(tmp_path):
    kernels, calls = loop(300, kernel_ns=2 * US, launch_ns=5 * US, period_ns=6 * US)
    path = write_profile(tmp_path / "p.sqlite", kernels, calls)
    failed = CliRunner().invoke(cli, ["diagnose", str(path), "--format", "json", "--fail-on", "error"])
    assert failed.exit_code == 4
    rules = [f["rule"] for f in json.loads(failed.output)["findings"]]
    assert "launch_bound" in rules
    quiet = CliRunner().invoke(cli, ["diagnose", str(path), "--rule", "copy_bottleneck", "--fail-on", "warning"])
    assert quiet.exit_code == 0


def test_diagnose_lowers_duckdb_memory_only_while_it_runs(tmp_path, monkeypatch):
    """DuckDB's pool is 700 MB while diagnose runs (its numpy arrays sit beside it), 1 GB again after; a limit the
    user set (NSYS_ANALYTICS_MEMORY) is left alone."""
    from nsys_analytics.capabilities.diagnose import beyond

    seen = []
    real = beyond.BEYOND_RULES["launch_bound"]

    def spy(profile, window, t):
        seen.append(profile.sql("SELECT current_setting('memory_limit')").rows[0][0])
        return real(profile, window, t)

    monkeypatch.setitem(beyond.BEYOND_RULES, "launch_bound", spy)
    kernels, calls = loop(200, 2 * US, 8 * US, 20 * US)
    path = write_profile(tmp_path / "p.sqlite", kernels, calls)
    monkeypatch.delenv("NSYS_ANALYTICS_MEMORY", raising=False)
    with nsys_analytics.open(path) as p:
        diagnose(p, ("launch_bound",))
        after = p.sql("SELECT current_setting('memory_limit')").rows[0][0]
    monkeypatch.setenv("NSYS_ANALYTICS_MEMORY", "300MB")
    with nsys_analytics.open(path) as p:
        diagnose(p, ("launch_bound",))
    assert seen[0] == "667.5 MiB" and after == "953.6 MiB" and seen[1] == "286.1 MiB"


def two_processes_sharing_a_gpu(path: Path) -> Path:
    """Process 100 runs kernels at 1 ms and 100 ms, process 200 at 2 ms and 101 ms, each 0.1 ms, both on GPU 0;
    each calls cudaDeviceSynchronize for the second half of its second kernel, and its third kernel starts 5 ms
    after that. Each process's span is 99.1 ms, almost all of it idle."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [*STRINGS.items(), (4, "cudaDeviceSynchronize_v3020")])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT, "
                "streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT)")
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, "
                "nameId INT)")
    ms = 1_000 * US
    for pid, first in ((100, 1 * ms), (200, 2 * ms)):
        starts = (first, first + 99 * ms, first + 99 * ms + 100 * US + 5 * ms)
        for i, start in enumerate(starts):
            corr = pid + i
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, 1, 1)",
                        (start, start + 100 * US, corr, pid << 24))
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, 2)",
                        (start - 10 * US, start - 5 * US, (pid << 24) + pid, corr))
        sync = starts[1] + 50 * US  # from mid-kernel to the kernel's end: 50 us of the call, none of it idle
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, 4)",
                    (sync, starts[1] + 100 * US, (pid << 24) + pid, pid + 50))
    con.commit()
    con.close()
    return path


def test_each_process_sharing_a_gpu_is_diagnosed_on_its_own_span(tmp_path):
    """nsys' rules measure each process on its own span: two processes' stretches overlap in time, so their sum
    (209.2 ms) would put more at stake than the capture lasts (109.2 ms). One finding per process, named."""
    path = two_processes_sharing_a_gpu(tmp_path / "two.sqlite")
    with nsys_analytics.open(path) as p:
        report = diagnose(p, ("gpu_time_util", "cuda_api_sync", "gpu_utilization"))
    util = sorted((f for f in report.findings if f.rule == "gpu_time_util"), key=lambda f: f.pid)
    assert [f.pid for f in util] == [100, 200]
    span_ns = 104_200 * US  # first kernel's start to the last one's end: 1 ms to 105.2 ms, 2 ms to 106.2 ms
    for f in util:
        assert f.at_stake_ns <= span_ns and f.summary.startswith(f"PID {f.pid}: GPU Time Utilization: ")
    syncs = sorted((f for f in report.findings if f.rule == "cuda_api_sync"), key=lambda f: f.pid)
    assert [(f.pid, f.figures["rows"], f.figures["span_ns"]) for f in syncs] == [(100, 1, span_ns),
                                                                              (200, 1, span_ns)]
    # idle from each call's start to its process's next kernel: 5 ms after the return, charged at most the call's 50 us
    assert [f.at_stake_ns for f in syncs] == [50 * US, 50 * US]
    busy = sorted((f.pid, f.figures["busy_ns"], f.figures["span_ns"]) for f in report.findings
                  if f.rule == "gpu_utilization")
    assert busy == [(100, 300 * US, span_ns), (200, 300 * US, span_ns)]
