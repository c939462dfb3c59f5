"""The built-in category rules know the kernels of every fixture: at most 5 % of a fixture's kernel time is `other`,
and no kernel carrying more than 1 % of it is. Kernel times are summed here with sqlite3, names classified with the
rules file, so a fixture added later (a new workload, a new compiler's kernel names) is checked too."""

from __future__ import annotations

import sqlite3

import pytest

from nsys_analytics.categories.rules import OTHER, load_rules

from .conftest import FIXTURE_NAMES, PROFILES, shared_profiles

RULES = load_rules()
MAX_OTHER_PCT = 5.0
NAMED_KERNEL_PCT = 1.0


def kernel_times(path) -> dict[str, int]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'").fetchone():
            return {}
        return dict(con.execute("SELECT s.value, sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                "JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value"))
    finally:
        con.close()


def unknown(path) -> tuple[float, list[tuple[float, str]]]:
    """(% of kernel time in `other`, [(%, name)] of the kernels over 1 % that no rule knows)."""
    times = kernel_times(path)
    total = sum(times.values())
    if not total:
        return 0.0, []
    other = {n: t for n, t in times.items() if RULES.classify(n).category == OTHER}
    big = sorted(((100 * t / total, n[:160]) for n, t in other.items() if 100 * t / total > NAMED_KERNEL_PCT),
                 reverse=True)
    return 100 * sum(other.values()) / total, big


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_a_fixture_has_at_most_5_percent_of_its_kernel_time_in_other(name):
    share, big = unknown(PROFILES / f"{name}.sqlite")
    assert share <= MAX_OTHER_PCT, f"{share:.1f} % in other; heaviest: {big[:5]}"


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_no_kernel_over_1_percent_of_a_fixture_is_other(name):
    _, big = unknown(PROFILES / f"{name}.sqlite")
    assert not big


@pytest.mark.shared
@pytest.mark.parametrize("profile", [p for p in shared_profiles() if "h200" in str(p)], ids=lambda p: p.stem)
def test_the_h200_reference_exports_have_no_kernel_time_in_other(profile):
    share, big = unknown(profile)
    assert share <= MAX_OTHER_PCT and not big, big


# compile_autotune: what each kernel is, read from Inductor's generated code
# (fixtures/oracle/compile_autotune/compile_autotune_inductor_code.py.txt) and fixtures/README.md.
AUTOTUNE = {
    "multi_tensor_apply_kernel": ("memory", ()),  # foreach Copy: cudagraph trees copy the inputs in
    "triton_tem_fused__unsafe_view_addmm_clone_convolution_gelu_t_transpose_view_4": ("matmul", ()),  # addmm
    "triton_tem_fused__softmax__to_copy_bmm_mul_split_sub_view_7": ("matmul", ()),  # bmm, weights x V
    "triton_tem_fused_bmm_split_transpose_view_5": ("matmul", ()),  # bmm, Q K^T
    "triton_tem_fused_convolution_2": ("matmul", ("conv",)),  # the Triton convolution template
    "triton_tem_fused_mm_t_view_8": ("matmul", ()),  # mm
    "triton_per_fused__softmax__to_copy_amax_mul_sub_6": ("softmax", ()),
    "triton_per_fused_add_native_layer_norm_split_view_9": ("normalization", ()),
    "triton_red_fused_add_mean_native_layer_norm_split_view_10": ("normalization", ()),
    "triton_per_fused_add_mean_native_layer_norm_split_view_11": ("normalization", ()),
    "triton_poi_fused_convolution_0": ("memory", ()),  # input to channels-last: a load and a store, no arithmetic
    "triton_poi_fused_convolution_1": ("memory", ()),  # weight to channels-last, likewise
    "triton_poi_fused_clone_convolution_gelu_transpose_view_3": ("elementwise", ()),  # conv bias + GELU
}


def test_compile_autotune_kernels_land_in_their_category():
    times = kernel_times(PROFILES / "compile_autotune.sqlite")
    total = sum(times.values())
    for name, t in times.items():
        if 100 * t / total <= NAMED_KERNEL_PCT:
            continue
        key = "multi_tensor_apply_kernel" if "multi_tensor_apply_kernel" in name else name
        category, tags = AUTOTUNE[key]
        match = RULES.classify(name)
        assert (match.category, match.tags) == (category, tags), name
