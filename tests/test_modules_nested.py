"""`modules` over a model's own plain NVTX ranges, nested (`block_2 > attn`, `block_2 > mlp` in forward,
`bwd:block_2` in backward; fixtures/workloads/dist_gpt.py): the module is the path of the ranges around a kernel
(`block_2.mlp`), not the innermost name alone (`mlp` merged the four blocks' and left every block's forward at 0).
Expected values come from the workload's own CUDA-event truth (fixtures/ranks/RUN/truth.RANK.json), never our output."""

from __future__ import annotations

import json
from statistics import mean

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, unpacked

RANKS = FIXTURES / "ranks"


def truth(run: str, rank: int) -> dict:
    return json.loads((RANKS / run / f"truth.{rank}.json").read_text())


def per_step(run: str, rank: int, key: str) -> float:
    """The truth's mean over its steps: the profile's steady window is the same step_N ranges."""
    return mean(s[key] for s in truth(run, rank)["steps"])


@pytest.fixture(scope="module")
def rows():
    """{run: {(rank, module): row}}, from `modules FOLDER` (one export per rank) as a user runs it."""
    out = {}
    for run in ("fsdp2_forward", "fsdp2_backward"):
        folder = {unpacked(p).parent for p in sorted((RANKS / run).glob("*.sqlite.xz"))}.pop()
        result = CliRunner().invoke(cli, ["modules", str(folder), "--format", "json"])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.output[result.output.index("{"):])
        out[run] = {(r["rank"], r["module"]): r for r in doc["ranks"]}
    return out


@pytest.mark.parametrize("rank", [0, 1])
def test_the_nested_mlp_of_block_2_equals_the_truth(rows, rank):
    """truth: block_2's mlp takes 30.5 ms on rank 0 (73 extra matmuls), 5.7 ms on rank 1."""
    got = rows["fsdp2_forward"][rank, "block_2.mlp"]["forward_ms"]
    assert got == pytest.approx(per_step("fsdp2_forward", rank, "mlp2_ms"), rel=0.10)


def test_the_slow_layer_is_named_and_its_extra_work_is_the_truths(rows):
    """Rank 0's block_2.mlp is the only slow mlp; its excess over rank 1's is the designed extra work."""
    by = rows["fsdp2_forward"]
    mlps = {i: by[0, f"block_{i}.mlp"]["forward_ms"] for i in range(4)}
    assert max(mlps, key=mlps.get) == 2
    assert all(ms < 0.5 * mlps[2] for i, ms in mlps.items() if i != 2)
    excess = mlps[2] - by[1, "block_2.mlp"]["forward_ms"]
    assert excess == pytest.approx(per_step("fsdp2_forward", 0, "extra_ms"), rel=0.10)


def test_a_block_holds_its_children_forward_and_its_own_backward(rows):
    """Each block's forward is its attn's and mlp's (no longer 0); no bare `attn`/`mlp` module merges the blocks;
    a child with no `bwd:` range of its own has no backward figure (it is inside its block's), not 0."""
    by = rows["fsdp2_forward"]
    assert not {m for _r, m in by} & {"attn", "mlp"}
    for rank in (0, 1):
        for i in range(4):
            block = by[rank, f"block_{i}"]
            parts = by[rank, f"block_{i}.attn"]["forward_ms"] + by[rank, f"block_{i}.mlp"]["forward_ms"]
            assert block["forward_ms"] == pytest.approx(parts, abs=0.002)
            assert block["backward_ms"] > 0
            assert by[rank, f"block_{i}.mlp"]["backward_ms"] is None


def test_the_backward_straggler_lands_on_its_block(rows):
    """fsdp2_backward: rank 1 runs the extra work inside bwd:block_3; its excess over rank 0 is the truth's."""
    by = rows["fsdp2_backward"]
    excess = by[1, "block_3"]["backward_ms"] - by[0, "block_3"]["backward_ms"]
    assert excess == pytest.approx(per_step("fsdp2_backward", 1, "extra_ms"), rel=0.10)


def test_the_source_line_says_nested_ranges():
    path = unpacked(RANKS / "fsdp2_forward" / "fsdp2_forward.0.sqlite.xz")
    result = CliRunner().invoke(cli, ["modules", str(path), "--format", "json"])
    doc = json.loads(result.output)
    assert doc["source"] == "nested ranges"
    assert "instrument" not in doc["notes"][0] and "block_2 > mlp" in doc["notes"][0]


@pytest.mark.parametrize("chain, path", [
    ("block_2 > mlp", "block_2.mlp"),
    ("bwd:block_3", "block_3"),
    ("blocks.2 > blocks.2.mlp", "blocks.2.mlp"),   # a path-named range extends its parent's name
    ("bwd:block_2 > block_2 > mlp", "block_2.mlp"),  # a forward recomputed inside the block's backward
])
def test_a_chain_of_ranges_to_a_module_path(chain, path):
    from nsys_analytics.capabilities.modules.attribute import _nested_path

    assert _nested_path(chain) == path


def test_emit_nvtx_under_nested_plain_ranges(tmp_path):
    """emit_nvtx op ranges inside plain `block_I > mlp` ranges, backward ops on autograd's thread: each block's mlp
    is its own module in both directions (by hand: block_1's forward kernel 30 us, its backward 50 us)."""
    from .test_nvtx_attribution import Launch, Profile, Range, write_profile

    ranges, launches = [], []
    for i in range(2):
        t = 1_000_000 * i
        ranges += [Range(f"block_{i}", t, t + 3_000), Range("mlp", t + 100, t + 2_000),
                   Range(f"aten::mm, seq = {i}", t + 200, t + 1_000),
                   Range(f"MmBackward0, seq = {i}", 50_000 + t, 50_000 + t + 1_000, tid=2)]
        launches += [Launch(t + 300, t + 400, [(t + 3_000, t + 13_000 + 20_000 * i)], name="gemm"),
                     Launch(50_000 + t + 300, 50_000 + t + 400, [(100_000 + t, 130_000 + t + 20_000 * i)],
                            name="gemm_bwd", tid=2)]
    path = write_profile(tmp_path / "nested.sqlite", Profile(ranges, launches))
    result = CliRunner().invoke(cli, ["modules", str(path), "--format", "json", "--window", "all"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    modules = {m["module"]: m for m in doc["modules"]}
    assert doc["source"] == "emit_nvtx" and list(modules) == ["block_0", "block_0.mlp", "block_1", "block_1.mlp"]
    assert (modules["block_1.mlp"]["forward_ms"], modules["block_1.mlp"]["backward_ms"]) == (0.03, 0.05)


def test_the_report_names_the_slow_layer_of_nested_ranges():
    """`report` (f) over a rank file of nested ranges: block_2.mlp, whose backward has no range of its own (a blank,
    where the report's sum of forward and backward raised a TypeError), named with its truth's forward time."""
    path = unpacked(sorted((RANKS / "fsdp2_forward").glob("*.0.sqlite.xz"))[0])
    result = CliRunner().invoke(cli, ["report", "--forward", str(path), "--train", str(path)])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("The heaviest module is"))
    ms = float(line.split("block_2.mlp: ")[1].split(" ms forward")[0])
    assert ms == pytest.approx(per_step("fsdp2_forward", 0, "mlp2_ms"), rel=0.10)
    assert "its backward is timed with its parent's" in line


def test_the_notes_of_a_rank_folder_print_once_each_named_by_its_ranks():
    """Over a folder the notes printed twice, and rank 1's Source line, the same text as rank 0's, was dropped while
    rank 0's kept its "rank 0:": now a note both ranks wrote says "every rank", a rank's own its number."""
    folder = {unpacked(p).parent for p in sorted((RANKS / "fsdp2_forward").glob("*.sqlite.xz"))}.pop()
    out = CliRunner().invoke(cli, ["modules", str(folder)]).stdout.splitlines()
    notes = [x for x in out if x.startswith(("rank ", "every rank:", "ranks "))]
    assert len(notes) == len(set(notes))
    assert sum(x.startswith("every rank: Source: nested NVTX ranges") for x in notes) == 1
    assert any(x.startswith("rank 0: Window:") for x in notes) and any(x.startswith("rank 1: Window:") for x in notes)
