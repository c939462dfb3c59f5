"""The story of a substitution in `diff`'s headline: hand-made kernel rows with a hand-summed net change, and the
fixture pair (hand-written attention, fp32, against cuDNN SDPA, bf16) in both directions."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diff.story import Row, substitution
from nsys_analytics.capabilities.diff.verdict import verdict_name

from .conftest import PROFILES

TRAIN, SDPA = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_sdpa_train.sqlite"
FLASH = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4>, true>(Flash_fwd_params)"
MASK = ("void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl_nocast<"
        "at::native::<unnamed>::masked_fill_kernel(at::TensorIterator &, const c10::Scalar &)::[lambda() (instance 1)]"
        "::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(float, bool) (instance 1)]>"
        "(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)")


def rows() -> list[Row]:
    """Per step: FlashAttention forward (4 ms) and backward (6 ms) gone in :forward/:backward; softmax 5 ms, a
    masked_fill 3 ms and a batched GEMM 8 ms new in :attention (a range only the new side has), one more launch of
    an existing GEMM in :backward (+2 ms), and an unrelated layer norm change (+1 ms) in :forward."""
    return [
        Row("disappeared", "attention", ":forward", 4e6, 0, 1, 0, FLASH),
        Row("disappeared", "attention", ":backward", 6e6, 0, 1, 0, FLASH.replace("fwd", "bwd")),
        Row("appeared", "softmax", ":attention", 0, 5e6, 0, 2, "softmax_warp_forward<float>"),
        Row("appeared", "elementwise", ":attention", 0, 3e6, 0, 1, MASK),
        Row("appeared", "matmul", ":attention", 0, 8e6, 0, 2, "ampere_sgemm_128x64_strided_batched_nn"),
        Row("changed", "matmul", ":backward", 10e6, 12e6, 4, 5, "ampere_sgemm_128x64_nn"),
        Row("changed", "normalization", ":forward", 2e6, 3e6, 2, 2, "layer_norm_kernel"),
    ]


def test_substitution_by_hand():
    """Net = -4 - 6 (fused gone) + 5 + 3 + 8 (new in :attention) + 2 (the GEMM launched more in :backward, a range
    the fused kernels ran in) = +8 ms; the layer norm (not a part of attention) is left out. Words: the operations
    in a fixed order, one matmul word (batched: one of them says so)."""
    story = substitution(rows(), set(), {":attention"}, (30e6, 38e6))
    assert story.kernel_ns == pytest.approx(8e6)
    text = ("fused attention (FlashAttention) gone; unfused softmax, masking and batched matmul took its place: "
            "attention ")
    assert story.sentence() == text + "+8.000 ms of kernel time per step"
    assert story.sentence("per step", 12.5e6) == text + "+12.5 ms per step (+8.000 ms of it in kernels)"


def test_the_reverse_and_nothing_without_a_fused_family():
    flipped = [Row(r.status.replace("disappeared", "x").replace("appeared", "disappeared").replace("x", "appeared"),
                   r.category, r.range, r.new_ns, r.base_ns, r.new_instances, r.base_instances, r.name)
               for r in rows()]
    story = substitution(flipped, {":attention"}, set(), (38e6, 30e6))
    assert story.kernel_ns == pytest.approx(-8e6)
    assert story.sentence() == ("unfused softmax, masking and batched matmul gone; fused attention "
                                "(FlashAttention) took their place: attention -8.000 ms of kernel time per step")
    assert substitution([r for r in rows() if r.category != "attention"], set(), {":attention"}, (30e6, 38e6)) is None


def test_verdict_names_keep_the_distinguishing_word():
    assert "masked_fill" in verdict_name(MASK) and len(verdict_name(MASK)) < len(MASK)


@pytest.mark.parametrize("base,new,first", [(SDPA, TRAIN, "fused attention (cuDNN SDPA) gone; unfused "),
                                            (TRAIN, SDPA, "; fused attention (cuDNN SDPA) took their place")])
def test_fixture_pair_tells_the_substitution(base, new, first):
    """The hand-written attention's kernels in its own ranges (:computing_attention_scores, :computing_softmax,
    :final_matmul) and its softmax/masked_fill backward in :backward against cuDNN SDPA's fprop/bprop."""
    result = CliRunner().invoke(cli, ["diff", str(base), str(new), "--format", "json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.output)
    assert first in d["verdict"] and "softmax" in d["verdict"] and "masking" in d["verdict"]
    net = d["headline"]["story_ns"]
    # the SDPA kernels (attention category, per step) are part of the net change, with the sign of their side
    sdpa = sum(r["new_total_ns"] - r["base_total_ns"] for r in d["kernels"] if r["category"] == "attention")
    assert (net > 0) == (base == SDPA) and abs(net) < abs(d["headline"]["kernel"]["new_ns"] - d["headline"]["kernel"][
        "base_ns"]) and sdpa != 0


def test_a_substitution_holding_less_than_half_the_change_comes_after_what_weighs_most():
    """gpt_train -> gpt_sdpa_train also moved to bf16 (cuBLAS fp32 -> nvjet): matmul carries most of the kernel
    time's change and the attention substitution about a quarter. The verdict led with the substitution alone; now
    the heaviest category leads and the substitution follows ("besides, ..."). Where the substitution holds at
    least half (the gpt_sdpa_1/gpt_manual_1 pair, test_diff_stories.py) it still leads."""
    result = CliRunner().invoke(cli, ["diff", str(TRAIN), str(SDPA), "--format", "json"])
    d = json.loads(result.output)
    h = d["headline"]
    change = h["kernel"]["new_ns"] - h["kernel"]["base_ns"]
    matmul = next(r for r in d["categories"] if r["category"] == "matmul")
    assert 0 < h["story_kernel_ns"] / change < 0.5 and matmul["change_ns"] / change > 0.5
    lead, _, after = d["verdict"].partition("; besides, ")
    assert "mostly matmul kernels" in lead and "took their place" in after
