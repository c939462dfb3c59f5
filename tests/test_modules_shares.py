"""What `modules` counts in its shares and lists: `step_pct` is a share of the step's wall time (not of the summed
kernel time, which overlapping streams stretch past the step), and a module's heaviest kernels are those its time
sums (its own and its children's), the same at any --depth. Expected values come from the workloads' CUDA-event
truth (fixtures/modules/modules_truth.json, fixtures/ranks/RUN/truth.RANK.json) or from hand arithmetic."""

from __future__ import annotations

import json
from statistics import mean

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, rank_files, unpacked

TRUTH = json.loads((FIXTURES / "modules" / "modules_truth.json").read_text())


def modules_json(path, *extra) -> dict:
    result = CliRunner().invoke(cli, ["modules", str(path), "--format", "json", *map(str, extra)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _kernels_of(doc: dict, module: str) -> list[tuple]:
    return [(k["direction"], k["kernel"], k["ms"]) for k in doc["kernels"] if k["module"] == module]


@pytest.mark.parametrize("module", ["blocks.2", "blocks.0"])
def test_a_module_lists_the_same_kernels_at_any_depth(module):
    """blocks.2 launches its kernels inside its submodules (attn, mlp, ln1, ln2): at --depth 2 its list was every
    kernel below it, at --depth 3 or unfolded only the few launched in blocks.2 itself (the residual adds). Now the
    list is the same at every depth, and all of it sums to the module's truth (inclusive of its submodules)."""
    path = unpacked(FIXTURES / "modules" / "modules_instrument.sqlite.xz")
    lists = [_kernels_of(modules_json(path, "--table", "kernels", "--top", 1000, *depth), module)
             for depth in (["--depth", 2], ["--depth", 3], [])]
    assert lists[0] == lists[1] == lists[2]
    for direction in ("forward", "backward"):
        total = sum(ms for d, _kernel, ms in lists[0] if d == direction)
        assert total == pytest.approx(TRUTH["module_ms"][f"{module}|{direction}"], rel=0.10)


@pytest.mark.parametrize("rank", [0, 1])
def test_step_pct_is_a_share_of_the_steps_wall_time(rank):
    """fsdp2_backward: each rank's step takes 170.7 ms (the truth's wall_ms, mean of its steps). The denominator was
    the summed kernel time: 226 ms on rank 0, whose NCCL kernels wait out rank 1's extra backward work on their own
    stream, under compute (shares a quarter too small), 167 ms on rank 1. Now a module's share is its time over the
    step's wall time."""
    doc = modules_json(rank_files("fsdp2_backward")[rank], "--depth", 1)
    truth = json.loads((FIXTURES / "ranks" / "fsdp2_backward" / f"truth.{rank}.json").read_text())
    wall = mean(s["wall_ms"] for s in truth["steps"])
    assert doc["step_ms"] == pytest.approx(wall, rel=0.01)
    for row in doc["modules"]:
        assert row["step_pct"] == pytest.approx(100 * (row["forward_ms"] + row["backward_ms"]) / wall, abs=0.3)


def _overlapping(tmp_path):
    """Two 10 us steps; in each, block_0's forward kernel (6 us) and backward kernel (2 us, autograd's thread), and
    an all-reduce of 8 us outside every module that overlaps them on the GPU: 16 us of kernels in a 10 us step."""
    from .test_nvtx_attribution import Launch, Profile, Range, write_profile

    ranges, launches = [], []
    for i in range(2):
        t = 10_000 * i
        ranges += [Range(f"step_{i}", t, t + 10_000), Range("block_0", t + 100, t + 1_000),
                   Range("bwd:block_0", t + 2_000, t + 3_000, tid=2)]
        launches += [Launch(t + 200, t + 300, [(t + 1_000, t + 7_000)], name="gemm"),
                     Launch(t + 2_200, t + 2_300, [(t + 7_000, t + 9_000)], name="gemm_bwd", tid=2),
                     Launch(t + 4_000, t + 4_100, [(t + 1_000, t + 9_000)], name="nccl_all_reduce")]
    return write_profile(tmp_path / "overlap.sqlite", Profile(ranges, launches))


def test_overlapping_streams_do_not_shrink_the_share(tmp_path):
    """By hand: block_0 = 6 + 2 us a step, the step 10 us (step_0's start to step_1's end, over 2): 80 %, where the
    summed kernel time (16 us) gave 50 %. --window all: 16 us of block_0 over the kernels' span, 1 us to 19 us:
    88.9 %."""
    path = _overlapping(tmp_path)
    doc = modules_json(path)
    (row,) = doc["modules"]
    assert (row["module"], row["forward_ms"], row["backward_ms"]) == ("block_0", 0.006, 0.002)
    assert row["step_pct"] == 80.0
    assert (doc["step_ms"], doc["kernel_ms"]) == (0.01, 0.016)
    whole = modules_json(path, "--window", "all")
    assert (whole["step_ms"], whole["modules"][0]["step_pct"]) == (0.018, 88.9)
    assert any("share of the step's wall time, 0.010 ms" in n and "past 100 %" in n for n in doc["notes"])
