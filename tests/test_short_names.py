"""The table format shortens long kernel names, and never shows two different kernels under the same text in one
table: checked with every real kernel name of the fixtures (and, with --shared-profiles, of the reference exports)."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.output.render import NAME_WIDTH, to_table
from nsys_analytics.output.terminal import laid_out
from nsys_analytics.core.result import Result

from .conftest import FIXTURE_NAMES, PROFILES, shared_profiles


def kernel_names(path) -> list[str]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [n for (n,) in con.execute("SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                          "JOIN StringIds s ON s.id = k.demangledName ORDER BY 1")]
    finally:
        con.close()


def shown(names: list[str]) -> list[str]:
    """The name column of a one-column table of `names`, as the table format prints it."""
    lines = to_table(Result(["name"], [(n,) for n in names])).splitlines()[2:]
    return [line.rstrip() for line in lines]


def check_distinct(names: list[str]) -> None:
    cells = shown(names)
    assert len(cells) == len(names)
    collisions = {c for c in cells if cells.count(c) > 1}
    assert not collisions, f"different kernels shown alike: {sorted(collisions)[:3]}"
    for name, cell in zip(names, cells):
        assert len(cell) <= max(len(name), NAME_WIDTH) or cell == name


def all_fixture_names() -> list[str]:
    return sorted({n for f in FIXTURE_NAMES for n in kernel_names(PROFILES / f"{f}.sqlite")})


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_no_two_kernels_of_a_fixture_look_alike(name):
    check_distinct(kernel_names(PROFILES / f"{name}.sqlite"))


def test_no_two_kernels_of_all_fixtures_together_look_alike():
    check_distinct(all_fixture_names())


@pytest.mark.shared
@pytest.mark.parametrize("profile", shared_profiles(), ids=lambda p: p.stem)
def test_no_two_kernels_of_a_shared_profile_look_alike(profile):
    check_distinct(kernel_names(profile))


def test_the_functor_tells_elementwise_kernels_apart():
    names = [n for n in kernel_names(PROFILES / "gpt_train.sqlite") if n.startswith(
        "void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_nocast<")]
    assert len(names) >= 3  # masked_fill, direct_copy, CUDAFunctor_add, ... in the fixture
    cells = dict(zip(names, shown(names)))
    for needle in ("masked_fill_kernel", "direct_copy_kernel_cuda", "CUDAFunctor_add"):
        name = next(n for n in names if needle in n)
        assert needle in cells[name], cells[name]
        assert len(cells[name]) < len(name) * 0.6


def test_short_names_stay_whole():
    assert shown(["void f<int>(float)"]) == ["void f<int>(float)"]


def test_kernels_table_of_the_cli_shows_every_kernel_apart():
    result = CliRunner().invoke(cli, ["kernels", str(PROFILES / "gpt_train.sqlite")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines[0].index("Name")
    cells = [line[start:].rstrip() for line in lines[2:] if line[:1] == " "]  # the rows: a right-aligned Time (%)
    assert len(cells) == len(set(cells)) == len(kernel_names(PROFILES / "gpt_train.sqlite"))


def test_report_non_matmul_table_shows_kernels_apart():
    result = CliRunner().invoke(cli, ["report", "--forward", str(PROFILES / "gpt_forward.sqlite")])
    assert result.exit_code == 0, result.output
    table = result.output.split("Non-matmul kernels\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    start, end = table[0].index("Kernel"), table[0].index("Total Time")
    cells = [line[start:end].rstrip() for line in table[2:]]
    assert len(cells) == len(set(cells)) > 3


@pytest.mark.parametrize("columns", [100, 140, 160, 180, 200, 230, 260])
def test_the_functor_stays_at_every_terminal_width(columns):
    """Whatever the width, an elementwise kernel's functor shows (README, `kernels`): a name too long for its column
    at one width was collapsed to `gpu_kernel_impl_nocast<…>` (the same text direct_copy's collapses to) or cut in
    the middle of its raw name, at another it wrapped whole."""
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(
        cli, ["classify", str(PROFILES / "gpt_train.sqlite"), "--match", "masked_fill|direct_copy"])
    assert result.exit_code == 0, result.output
    lines = result.output.split("\n\n")[0].splitlines()
    start = lines[0].index("Name")
    cells: list[str] = []
    for line in lines[2:]:  # a row, then the lines its name wrapped onto (blank before the name column)
        if line[:start].strip():
            cells.append(line[start:].rstrip())
        else:
            cells[-1] += line[start:].rstrip()
    assert len(cells) == 2 and any("masked_fill_kernel" in c for c in cells) and \
        any("direct_copy_kernel_cuda" in c for c in cells), cells


# Two cuBLAS GEMMs of gpt_train that differ only in the middle: the tile and warp sizes.
TILE_64 = ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_"
           "kernel__5x_cublas")
TILE_128 = ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_"
            "execute_kernel__5x_cublas")


def test_names_that_differ_in_the_middle_show_apart_when_piped():
    assert {TILE_64, TILE_128} <= set(kernel_names(PROFILES / "gpt_train.sqlite"))
    assert shown([TILE_64, TILE_128]) == [TILE_64, TILE_128]  # 121 and 122 characters: within NAME_WIDTH, whole
    long_64, long_128 = (n.replace("execute_kernel", "execute_" + "segment_k_" * 3 + "kernel") for n in (TILE_64,
                                                                                                          TILE_128))
    cells = shown([long_64, long_128])  # 151 and 152: cut in the middle alike, so shown longer (here whole)
    assert cells[0] != cells[1] and "tilesize64x64x8" in cells[0] and "tilesize128x64x8" in cells[1]


def test_a_pair_of_names_that_differ_in_the_middle_keeps_both_sides():
    """diff's variant rows name two kernels, `old -> new`: cut in the middle as one text, piped, the cell kept the
    old name's head and the new one's tail, `…tilesize64x64x8_stage3_wa…ge3_warpsize2x2x1_ffma…`, which reads as
    one kernel (no arrow, no new tile size). Each side is a name, shortened on its own (here: whole)."""
    cells = shown([f"{TILE_64} -> {TILE_128}", f"{TILE_128} -> {TILE_64}"])
    assert cells == [f"{TILE_64} -> {TILE_128}", f"{TILE_128} -> {TILE_64}"]


@pytest.mark.parametrize("columns", [80, 120, 200])
def test_a_pair_keeps_its_arrow_and_both_tiles_at_every_width(columns):
    table = Result(["status", "name"], [("variant", f"{TILE_64} -> {TILE_128}"), ("gone", TILE_64)])
    with laid_out(columns):
        lines = to_table(table).splitlines()[2:]
    start = len("variant  ")
    assert max(len(line) for line in lines) <= columns
    cell = "".join(line[start:] for line in lines if not line.startswith("gone")).replace(" ", "")  # wrapped
    old, new = cell.split("->")
    assert "tilesize64x64x8" in old and "tilesize128x64x8" in new
