"""The built-in category rules know the kernels of every fixture: at most 5 % of a fixture's kernel time is `other`,
and no kernel carrying more than 1 % of it is. Kernel times are summed here with sqlite3, names classified with the
rules file, so a fixture added later (a new workload, a new compiler's kernel names) is checked too: the profiles,
every rank of fixtures/ranks and, with --shared-profiles, every export in ../shared/profiles (all nsys versions)."""

from __future__ import annotations

import sqlite3

import pytest

from nsys_analytics.capabilities.categories.rules import OTHER, load_rules

from .conftest import FIXTURE_NAMES, PROFILES, RANK_RUNS, rank_files, shared_profiles

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


RANK_FILES = {run: rank_files(run) for run in RANK_RUNS}  # .sqlite.xz decompressed once, at collection
FIXTURES = [f"profiles/{name}" for name in FIXTURE_NAMES] + [f"ranks/{run}/{i}" for run, files in RANK_FILES.items()
                                                             for i in range(len(files))]


def fixture_file(fixture: str):
    kind, name, *rank = fixture.split("/")
    return PROFILES / f"{name}.sqlite" if kind == "profiles" else RANK_FILES[name][int(rank[0])]


def test_every_rank_run_is_checked():
    assert RANK_RUNS and all(RANK_FILES[run] for run in RANK_RUNS)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_a_fixture_has_at_most_5_percent_of_its_kernel_time_in_other(fixture):
    share, big = unknown(fixture_file(fixture))
    assert share <= MAX_OTHER_PCT, f"{share:.1f} % in other; heaviest: {big[:5]}"


@pytest.mark.parametrize("fixture", FIXTURES)
def test_no_kernel_over_1_percent_of_a_fixture_is_other(fixture):
    _, big = unknown(fixture_file(fixture))
    assert not big


@pytest.mark.shared
@pytest.mark.parametrize("profile", shared_profiles(), ids=lambda p: p.stem)
def test_a_reference_export_has_at_most_5_percent_in_other_and_no_kernel_over_1_percent(profile):
    share, big = unknown(profile)
    assert share <= MAX_OTHER_PCT and not big, f"{share:.1f} % in other; heaviest: {big[:5]}"


def test_the_threshold_check_sees_an_unknown_kernel(tmp_path):
    """The check itself: a profile of one known and one unknown kernel (3:1) has 25 % in other, and that kernel."""
    path = tmp_path / "two.sqlite"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE StringIds (id INTEGER, value TEXT);"
                      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, demangledName INTEGER);"
                      "INSERT INTO StringIds VALUES (1, 'ampere_sgemm_128x64_tn'), (2, 'my_mystery_kernel');"
                      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 300, 1), (300, 400, 2);")
    con.commit()
    con.close()
    assert unknown(path) == (25.0, [(25.0, "my_mystery_kernel")])


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
