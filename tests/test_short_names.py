"""The table format shortens long kernel names, and never shows two different kernels under the same text in one
table: checked with every real kernel name of the fixtures (and, with --shared-profiles, of the reference exports)."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.output.render import NAME_WIDTH, to_table
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
