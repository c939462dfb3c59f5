"""`attention`'s data type and ridge point when the user gives neither: the type read from the attention kernels'
names, the ridge from the profile's GPU and NVIDIA's datasheet peaks (docs/attention.md, "Data type and ridge
point"); an explicit --dtype / --ridge wins. Expected values are worked out by hand in each docstring.

Shape of the gpt fixtures (fixtures/README.md): B=4, T=256, H=4, d=64, so B·H·T² = 1,048,576 and B·H·T·d = 262,144.
Fused FLOPs = 4·1,048,576·64 + 5·1,048,576 = 268,435,456 + 5,242,880 = 273,678,336 per instance.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import nsys_analytics as na
from nsys_analytics.capabilities.attention.data import KernelTime
from nsys_analytics.capabilities.attention.flops import Shape
from nsys_analytics.capabilities.attention.peaks import ridge_for
from nsys_analytics.capabilities.attention.precision import infer_dtype, name_dtype
from nsys_analytics.capabilities.attention.report import AttentionOptions, analyze_attention
from nsys_analytics.cli.main import cli

from .conftest import PROFILES
from .test_nvtx_attribution import Launch, Profile, Range, write_profile

SHAPE = Shape(batch=4, seq_len=256, heads=4, d_head=64)
SDPA = str(PROFILES / "gpt_sdpa_train.sqlite")
SHAPE_ARGS = ["--batch", "4", "--seq-len", "256", "--d-model", "256", "--heads", "4"]
FUSED_FLOPS = 273_678_336


def _totals(args: list[str]) -> tuple[dict[str, dict], dict]:
    """The totals rows by piece, and the totals section (findings, notes), from --format json."""
    out = CliRunner().invoke(cli, ["attention", *args, "--format", "json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    return {r["piece"]: r for r in doc["sections"]["totals"]["tables"][0]["rows"]}, doc["sections"]["totals"]


@pytest.mark.parametrize("name,dtype", [
    ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0",
     "fp16/bf16"),
    ("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_stage4_warpsize2x2x1_tensor16x8x16", "bf16"),
    ("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4", "fp32"),
    ("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32", "fp16"),
    ("sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16", "tf32"),
    ("volta_h884gemm_64x64_ldg8_nn", "fp16"),
    ("void <unnamed>::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, (int)8, (bool)0>(T2 *)", "bf16"),
    ("void <unnamed>::softmax_warp_forward<float, float, float, (int)8, (bool)0, (bool)0>(T2 *, const T1 *)", "fp32"),
    ("void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4, false, false, cutlass::half_t>>", "fp16"),
    ("void scaled_mm_kernel<__nv_fp8_e4m3, float>(T1 *)", "fp8"),
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nt_align1>(T1::Params)", "fp32"),
    # nvjet's _h_ / _v_ are tile orders, not half; bool and int say nothing of the scores' type
    ("nvjet_sm90_tst_64x48_64x15_2x4_h_bz_NNT", None),
    ("void at::native::vectorized_elementwise_kernel<(int)4, at::native::bitwise_not_kernel_cuda("
     "at::TensorIteratorBase &)::[lambda(bool) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)",
     None),
])
def test_a_kernel_name_says_its_narrowest_type(name, dtype):
    """The input type is the narrowest named: `bf16bf16_bf16f32_f32` reads bf16 and accumulates in f32 (cuBLAS:
    A, B, C types, then compute and scale types); cuDNN's generated SDPA kernel says f16 under bf16 autocast (the
    gpt_sdpa_train workload, fixtures/README.md), so a bare f16 is only "16-bit"."""
    assert (name_dtype(name) or (None,))[0] == dtype


def test_kernels_that_disagree_give_no_type_and_say_so():
    """bf16 GEMMs with an fp32 softmax (autocast keeps softmax in fp32): no single element size, so no guess;
    cuDNN's bare f16 beside an explicit bf16 is bf16; names that say nothing give nothing."""
    gemm = KernelTime("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 12, 1000)
    softmax = KernelTime("void <unnamed>::softmax_warp_forward<float, float, float, (int)8>(T2 *)", 12, 500)
    cudnn = KernelTime("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7", 12, 700)
    mixed = infer_dtype([gemm, softmax])
    assert mixed.dtype is None and "disagree" in mixed.because and "bf16" in mixed.because and "fp32" in mixed.because
    assert infer_dtype([cudnn, gemm]).dtype == "bf16"
    assert infer_dtype([cudnn]).dtype == "fp16/bf16"
    assert infer_dtype([KernelTime("nvjet_sm90_tst_64x48_64x15_2x4_h_bz_NNT", 1, 1)]).dtype is None


def test_ridge_from_the_gpu_and_the_datasheets():
    """Dense peak / bandwidth. The datasheets print tensor-core figures with sparsity; dense is half.
    H200 bf16: (1,979 / 2) / 4.8 = 989.5 / 4.8 = 206.15 -> 206.1; H200 fp32: 67 / 4.8 = 13.96 -> 14.0.
    H100 SXM ('NVIDIA H100 80GB HBM3') bf16: 989.5 / 3.35 = 295.37 -> 295.4; fp8: (3,958 / 2) / 3.35 = 590.7.
    A100 80GB SXM fp32: 19.5 / 2.039 = 9.56 -> 9.6; H100 PCIe tf32: (756 / 2) / 2.0 = 189.0.
    Unknown GPU, bf16: the lowest 16-bit ridge listed, A100 80GB SXM 312 / 2.039 = 153.02 -> 153.0.
    A100 with fp8 (no fp8 peak): the lowest fp8 ridge, H200 NVL (3,341 / 2) / 4.8 = 348.02 -> 348.0."""
    assert ridge_for("bf16", ["NVIDIA H200"]).value == 206.1
    assert ridge_for("fp16/bf16", ["NVIDIA H200"]).peak_tbps == 4.8
    assert ridge_for("fp32", ["NVIDIA H200"]).value == 14.0
    assert ridge_for("bf16", ["NVIDIA H100 80GB HBM3"]).value == 295.4
    assert ridge_for("fp8", ["NVIDIA H100 80GB HBM3"]).value == 590.7
    assert ridge_for("fp32", ["NVIDIA A100-SXM4-80GB"]).value == 9.6
    assert ridge_for("tf32", ["NVIDIA H100 PCIe"]).value == 189.0
    unknown = ridge_for("bf16", ["NVIDIA GeForce RTX 4090"])
    assert (unknown.value, unknown.peak_tflops) == (153.0, None) and "--ridge" in unknown.source
    assert ridge_for("fp8", ["NVIDIA A100-SXM4-80GB"]).value == 348.0
    assert ridge_for("bf16", ["NVIDIA H200", "NVIDIA A100-SXM4-80GB"]).value == 153.0
    assert ridge_for("bf16", []).value == 153.0


def test_sdpa_bf16_profile_without_dtype_is_16_bit_and_memory_bound():
    """gpt_sdpa_train ran under autocast(bfloat16); its one fused kernel says f16. 2 bytes per element:
    bytes = 2·4·262,144 = 2,097,152 (Q, K, V in, O out), intensity 273,678,336 / 2,097,152 = 130.5 FLOP/byte,
    below the H200's 16-bit ridge 206.1: memory-bound (the old default read fp32: 4,194,304 bytes, 65.2 FLOP/byte,
    against a ridge of 8: compute-bound)."""
    rows, section = _totals([SDPA, *SHAPE_ARGS])
    fused = rows["fused attention"]
    assert (fused["flops"], fused["bytes"], fused["bound"]) == (FUSED_FLOPS, 2_097_152, "memory-bound")
    assert fused["flop_per_byte"] == pytest.approx(130.5, abs=0.01)
    text = " ".join(section["lines"])
    assert "fp16/bf16 (2 bytes per element), inferred from the attention kernel names" in text
    assert "sdpa_sm90_flash_fprop_wgmma_f16" in text
    assert "Ridge point 206.1 FLOP/byte for fp16/bf16, from NVIDIA H200" in text and "H200 datasheet" in text


def test_sdpa_percent_of_peak_is_a_few_percent():
    """The achieved rate against the H200's peaks: GB/s = 2,097,152 bytes / avg ns; % = GB/s / 4,800 GB/s.
    TFLOP/s = 273,678,336 / avg ns / 1e3; % = TFLOP/s / 989.5. Both are a few %: a 6 us kernel over 2 MB."""
    rows, section = _totals([SDPA, *SHAPE_ARGS])
    avg_ns = rows["fused attention"]["avg_time_ns"]
    gbps, tflops = 2_097_152 / avg_ns, FUSED_FLOPS / avg_ns / 1e3
    assert 1 < 100 * gbps / 4800 < 20 and 1 < 100 * tflops / 989.5 < 20
    verdict = next(f for f in section["lines"] if f.startswith("fused attention:"))
    assert f"{100 * gbps / 4800:.1f}% of the 4.8 TB/s peak" in verdict


def test_explicit_dtype_and_ridge_win():
    """--dtype fp32: 4·4·262,144 = 4,194,304 bytes, 273,678,336 / 4,194,304 = 65.25 FLOP/byte, above the H200
    fp32 ridge 67 / 4.8 = 14.0: compute-bound. --ridge 50 with the inferred 16-bit type: 130.5 > 50, compute-bound;
    --dtype bf16 --ridge 500: 130.5 < 500, memory-bound, and no GPU peak is quoted."""
    rows, section = _totals([SDPA, *SHAPE_ARGS, "--dtype", "fp32"])
    assert (rows["fused attention"]["bytes"], rows["fused attention"]["bound"]) == (4_194_304, "compute-bound")
    text = " ".join(section["lines"])
    assert "fp32 (4 bytes per element), from --dtype" in text and "Ridge point 14 FLOP/byte for fp32" in text
    rows, section = _totals([SDPA, *SHAPE_ARGS, "--ridge", "50"])
    assert (rows["fused attention"]["bytes"], rows["fused attention"]["bound"]) == (2_097_152, "compute-bound")
    assert "Ridge point 50 FLOP/byte for fp16/bf16, from --ridge" in " ".join(section["lines"])
    rows, section = _totals([SDPA, *SHAPE_ARGS, "--dtype", "bf16", "--ridge", "500"])
    assert rows["fused attention"]["bound"] == "memory-bound"
    assert "bf16 (2 bytes per element), from --dtype" in " ".join(section["lines"])
    assert "% of the" not in " ".join(section["lines"])


def test_fp32_forward_profile_infers_fp32_and_the_h200_fp32_ridge():
    """gpt_forward is plain fp32 (sm80_xmma_gemm_f32f32_..._ffma, softmax_warp_forward<float, ...>): 4 bytes, as
    before; ridge 67 / 4.8 = 14.0. QK^T: 134,217,728 / 6,291,456 = 21.3 > 14: compute-bound; softmax
    5,242,880 / 8,388,608 = 0.625 < 14: memory-bound."""
    with na.open(PROFILES / "gpt_forward.sqlite") as p:
        a = analyze_attention(p, AttentionOptions(shape=SHAPE))
    assert (a.precision.dtype, a.precision.ridge.value) == ("fp32", 14.0)
    rows = {r[0]: dict(zip(a.totals.columns, r)) for r in a.totals.rows}
    assert (rows["QK^T (scores)"]["bytes"], rows["QK^T (scores)"]["bound"]) == (6_291_456, "compute-bound")
    assert (rows["softmax"]["bytes"], rows["softmax"]["bound"]) == (8_388_608, "memory-bound")


def test_footer_names_the_bytes_each_piece_moves():
    """The fused piece's bytes are Q, K, V read and O written (s·4·B·H·T·d), not the T x T scores; the unfused
    pieces list their own reads and writes."""
    fused = " ".join(_totals([SDPA, *SHAPE_ARGS])[1]["notes"])
    assert "2·4·B·H·T·d bytes (Q, K, V read, O written; the T x T scores stay on chip)" in fused
    assert "scores read and written" not in fused
    plain = " ".join(_totals([str(PROFILES / "gpt_forward.sqlite"), *SHAPE_ARGS])[1]["notes"])
    assert "QK^T 4·(2·B·H·T·d + B·H·T²) (Q, K read, the T x T scores written)" in plain
    assert "softmax and mask 4·2·B·H·T² (the scores read and written)" in plain


def _mixed_profile(path, names: tuple[str, str, str]):
    """One attention call with its three sub-ranges and one kernel in each; no GPU table."""
    spec = Profile()
    spec.ranges += [Range("scaled_dot_product_attention", 100, 1000), Range("computing_attention_scores", 110, 300),
                    Range("computing_softmax", 310, 500), Range("final_matmul", 510, 700)]
    spec.launches += [Launch(120, 130, [(140, 240)], names[0]), Launch(320, 330, [(340, 390)], names[1]),
                      Launch(520, 530, [(540, 640)], names[2])]
    return write_profile(path, spec)


def test_mixed_types_keep_fp32_and_say_why(tmp_path):
    """bf16 GEMMs and an fp32 softmax: the names disagree, so fp32 is kept and said to be the default; with no GPU
    in the profile the ridge is the lowest fp32 one listed, A100 80GB SXM 19.5 / 2.039 = 9.6. QK^T bytes
    4·(2·262,144 + 1,048,576) = 6,291,456."""
    gemm = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64"
    softmax = "void <unnamed>::softmax_warp_forward<float, float, float, (int)8, (bool)0, (bool)0>(T2 *)"
    with na.open(_mixed_profile(tmp_path / "mixed.sqlite", (gemm, softmax, gemm))) as p:
        a = analyze_attention(p, AttentionOptions(shape=SHAPE))
    assert (a.precision.dtype, a.precision.ridge.value) == ("fp32", 9.6)
    text = " ".join(a.findings)
    assert "fp32 (4 bytes per element), the default: the attention kernel names disagree" in text
    assert "bf16 in 1 name(s)" in text and "fp32 in 1 name(s)" in text
    assert "the profile names no GPU" in text
    rows = {r[0]: dict(zip(a.totals.columns, r)) for r in a.totals.rows}
    assert rows["QK^T (scores)"]["bytes"] == 6_291_456


def test_names_without_a_type_keep_fp32_and_say_so(tmp_path):
    with na.open(_mixed_profile(tmp_path / "plain.sqlite", ("gemm", "softmax_kernel", "gemm"))) as p:
        a = analyze_attention(p, AttentionOptions(shape=SHAPE))
    assert a.precision.dtype == "fp32"
    assert "the default: none of the 2 attention kernel name(s) names a data type" in " ".join(a.findings)


def test_a_piece_far_from_both_peaks_is_not_said_to_be_limited_by_one():
    """Hand arithmetic, H200 peaks 989.5 TFLOP/s and 4.8 TB/s, ridge 206.1: the fused SDPA piece of gpt_sdpa_train
    (273,678,336 FLOP, 2,097,152 bytes, 5,853.2 ns) runs at 273678336 / 5853.2 / 1e3 = 46.76 TFLOP/s (4.7 %) and
    2097152 / 5853.2 = 358.3 GB/s (7.5 %): "bandwidth limits it" was said of a kernel at 7.5 % of bandwidth; now
    the caveat that it reaches neither peak. The same bytes in 1/10 of the time: 3582.9 GB/s, 74.6 % of 4.8 TB/s: no
    caveat, "limits"."""
    from nsys_analytics.capabilities.attention.flops import Cost, verdict

    cost = Cost(273_678_336, 2_097_152, "", "")
    bound, text = verdict(cost, 5_853.2, 206.1, (989.5, 4.8))
    assert bound == "memory-bound" and "would limit" in text
    assert "at 4.7% of compute and 7.5% of bandwidth it reaches neither peak" in text
    bound, text = verdict(cost, 585.32, 206.1, (989.5, 4.8))
    assert "bandwidth limits it" in text and "74.6% of the 4.8 TB/s peak" in text and "neither" not in text
