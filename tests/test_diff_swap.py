"""diff's stories beyond attention (diff/story.py), on hand-written kernel-table rows whose answers are checked by
hand: a fused norm replaced by its unfused steps, and kernels of one family replaced by another library's."""

from __future__ import annotations

from nsys_analytics.capabilities.diff.story import Row, substitution, swap

MS = 1e6


def row(status, category, rng, base_ms, new_ms, name, base_n=1.0, new_n=1.0):
    return Row(status, category, rng, base_ms * MS, new_ms * MS, base_n if base_ms else 0.0, new_n if new_ms else 0.0,
               name)


def test_a_fused_norm_replaced_by_its_unfused_steps():
    rows = [row("disappeared", "normalization", ":forward", 2.0, 0.0, "vectorized_layer_norm_kernel"),
            row("appeared", "reduction", ":forward", 0.0, 1.5, "reduce_kernel<mean>"),
            row("appeared", "elementwise", ":forward", 0.0, 1.2, "elementwise_kernel<mul>"),
            row("same", "matmul", ":forward", 5.0, 5.0, "nvjet_tst_128x64")]
    story = substitution(rows, set(), set(), (7.0 * MS, 7.7 * MS))
    assert story is not None and story.family == "normalization"
    assert story.text == "fused normalization gone; unfused elementwise and reductions took its place"
    assert abs(story.kernel_ns - 0.7 * MS) < 1e-3  # 1.5 + 1.2 - 2.0 ms by hand
    assert story.sentence() == ("fused normalization gone; unfused elementwise and reductions took its place: "
                                "normalization +0.700 ms of kernel time per step")


def test_matmul_kernels_of_another_library_in_the_same_range():
    rows = [row("disappeared", "matmul", ":forward", 3.0, 0.0, "sm90_xmma_gemm_f32f32_tilesize128x64"),
            row("disappeared", "matmul", ":backward", 1.0, 0.0, "sm90_xmma_gemm_f32f32_tilesize64x64"),
            row("appeared", "matmul", ":forward", 0.0, 2.6, "nvjet_tst_192x128_64x4_2x1_v_bz_TNT"),
            row("same", "elementwise", ":forward", 1.0, 1.0, "elementwise_kernel<add>")]
    story = swap(rows, (5.0 * MS, 3.6 * MS))
    # only :forward has both: 3.0 ms of cuBLAS gone, 2.6 ms of nvjet came -> -0.4 ms
    assert story is not None and story.family == "matmul" and abs(story.kernel_ns + 0.4 * MS) < 1e-3
    assert story.sentence() == ("matmul kernels replaced in `:forward` (cuBLAS gone, nvjet (cuBLASLt) in their "
                                "place): matmul -0.400 ms of kernel time per step")


def test_no_swap_where_kernels_only_appear_or_are_too_light():
    extra = [row("appeared", "matmul", ":extra", 0.0, 0.24, "sm80_xmma_gemm"),
             row("same", "matmul", ":forward", 2.0, 2.0, "sm80_xmma_gemm")]
    assert swap(extra, (2.5 * MS, 2.74 * MS)) is None  # nothing of the family went
    light = [row("disappeared", "memory", ":forward", 0.01, 0.0, "copy_a"),
             row("appeared", "memory", ":forward", 0.0, 0.01, "copy_b"),
             row("same", "matmul", ":forward", 10.0, 10.0, "gemm")]
    assert swap(light, (10.01 * MS, 10.01 * MS)) is None  # under 2 % of either side's kernel time
