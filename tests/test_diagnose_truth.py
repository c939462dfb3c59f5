"""diagnose's findings against the GPU's own timers: fixtures/workloads/diag_faults.py runs a training-like loop with
one designed reason for the GPU to wait (none, a sync after every block, launch-bound tiny kernels, pageable copies,
a host-side data loader between steps) and measures that wait with CUDA events
(fixtures/diagnose/diag_FAULT_truth.json, fixtures/README.md). The figures the findings state must be the ones the
workload measured."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, unpacked

FOLDER = FIXTURES / "diagnose"


def truth(fault: str) -> dict:
    return json.loads((FOLDER / f"diag_{fault}_truth.json").read_text())


def waited_ms(fault: str) -> float:
    """The GPU's idle time that the design put into the measured steps (all of them: the warm-up is its own
    range, so every step_N is steady for diagnose too)."""
    return sum(s["wait_ms"] for s in truth(fault)["steps"])


def findings(fault: str) -> dict[str, dict]:
    path = unpacked(FOLDER / f"diag_{fault}.sqlite.xz")
    result = CliRunner().invoke(cli, ["diagnose", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["window"]["kind"] == "steady" and "6 'step_*' range(s)" in report["window"]["text"]
    return {f["rule"]: f for f in report["findings"]}


def at_stake_ms(finding: dict) -> float:
    return finding["at_stake_ns"] / 1e6


def test_a_loop_that_never_waits_has_no_finding():
    assert waited_ms("none") == 0
    assert [f for f in findings("none").values() if f["severity"] != "info"] == []


def test_a_sync_after_every_block_costs_what_the_gpu_waited():
    """7 syncs a step, each followed by 2 ms of host work: the GPU waited 94.9 ms over the 6 steps by its own
    timers. Charged with the gaps between kernels that were queued before each sync, the syncs read 96.9 ms."""
    found, waited = findings("sync"), waited_ms("sync")
    sync = found["cuda_api_sync"]
    assert sync["severity"] == "warning" and sync["figures"]["rows"] == 7 * 6
    assert at_stake_ms(sync) == pytest.approx(waited, rel=0.015)
    assert at_stake_ms(found["gpu_starved"]) == pytest.approx(waited, rel=0.015)
    top = max(found.values(), key=lambda f: f["at_stake_ns"])
    assert top["rule"] in ("cuda_api_sync", "gpu_starved")


def test_a_data_loader_between_steps_costs_what_the_gpu_waited():
    """A sync at the end of each step, then 6 ms of host work before the next: 5 waits inside the steady window
    (the steps' envelope), 33.5 ms by the GPU's timers. The sync's charge used to add the gaps between the step's
    queued kernels (36.2 ms, 8 % too much)."""
    found, waited = findings("data"), waited_ms("data")
    sync = found["cuda_api_sync"]
    assert sync["figures"]["rows"] == 5 and sync["figures"]["idle_calls"] == 5
    assert at_stake_ms(sync) == pytest.approx(waited, rel=0.015)
    assert at_stake_ms(found["gpu_starved"]) == pytest.approx(waited, rel=0.015)


def test_launch_bound_tiny_kernels_are_counted_and_cost_what_the_gpu_waited():
    """7 stretches of 1,000 tiny kernels a step: launch_bound counts the 42,000 of the 6 steps, and is an error.
    What it puts at stake is the GPU's idle time before them beyond the ~1 us it leaves between queued kernels:
    183.1 ms against the 195.5 ms the workload's events timed (236 gaps of 20 us or more, 5.8 ms, are left to
    gpu_starved). The launch calls' time beyond their kernels' (172.6 ms) misses the host's time between the
    calls. The GPU's whole idle time (gpu_utilization) holds the wait."""
    found, waited = findings("launch"), waited_ms("launch")
    launch = found["launch_bound"]
    assert launch["severity"] == "error" and launch["figures"]["short_kernels"] == 6 * 7 * 1000
    assert at_stake_ms(launch) == pytest.approx(waited, rel=0.07)
    assert launch["figures"]["launch_excess_ns"] / 1e6 < at_stake_ms(launch) <= waited
    assert waited <= at_stake_ms(found["gpu_utilization"])
    assert f"the GPU sits idle {at_stake_ms(launch):.1f} ms before them beyond the 1.1 us" in launch["summary"]


def test_pageable_copies_between_blocks_are_the_bottleneck_the_gpu_timed():
    """7 copies of 32 MB from pageable memory a step, no kernel beside them: 151.6 ms by the events around them
    (which also hold each copy's start latency), 147.8 ms by nsys' copy records."""
    found = findings("copy")
    copied = sum(s["copy_ms"] for s in truth("copy")["steps"])
    copies = found["copy_bottleneck"]
    assert copies["severity"] == "error" and copies["figures"]["copies"] == 7 * 6
    assert copies["figures"]["copy_ns"] / 1e6 == pytest.approx(copied, rel=0.03)
    assert copies["figures"]["exposed_ns"] == copies["figures"]["pageable_ns"] == copies["figures"]["copy_ns"]
    assert at_stake_ms(copies) == copies["figures"]["exposed_ns"] / 1e6
    assert found["cuda_memcpy_async"]["figures"]["rows"] == 7 * 6


@pytest.mark.parametrize("fault", ["none", "sync", "launch", "copy", "data"])
def test_the_nsys_rules_tables_equal_nsys_analyze(fault, tmp_path):
    """The numbers under the findings: each nsys rule's table equals `nsys analyze`'s, cell for cell (the CSVs made
    beside each export on the GPU machine)."""
    import csv
    import io
    import tarfile

    from nsys_analytics.capabilities.diagnose import NSYS_RULES

    with tarfile.open(FOLDER / f"diag_{fault}_oracle.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data")
    path = unpacked(FOLDER / f"diag_{fault}.sqlite.xz")
    compared = 0
    for rule in NSYS_RULES:
        with open(tmp_path / f"diag_{fault}_analyze_{rule}.csv", newline="") as f:
            expected = list(csv.reader(f))
        result = CliRunner().invoke(cli, ["diagnose", str(path), "--window", "all", "--no-graphs", "--rule", rule,
                                          "--format", "csv"])
        assert result.exit_code == 0, result.output
        ours = list(csv.reader(io.StringIO(result.stdout)))
        if expected:
            assert ours == expected, rule
            compared += len(expected) - 1
        else:  # nsys writes an empty file when the rule finds nothing or is skipped
            assert len(ours) <= 1, ours
    assert compared > 0 or fault == "none"
