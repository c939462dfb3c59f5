"""Golden: `nsys-analytics kernels --format csv` equals nsys' own CSV, cell for cell."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURE_NAMES, PROFILES, fixture_oracle, oracle_csv, read_csv, shared_profiles

# (report file suffix, extra CLI options)
VARIANTS = [
    ("cuda_gpu_kern_sum", []),
    ("cuda_gpu_kern_sum_base", ["--name", "short"]),
    ("cuda_gpu_kern_sum_mangled", ["--name", "mangled"]),
    ("cuda_gpu_kern_gb_sum", ["--by-launch-config"]),
]


def our_csv(profile: Path, options: list[str]) -> list[list[str]]:
    result = CliRunner().invoke(cli, ["kernels", str(profile), "--format", "csv", *options])
    assert result.exit_code == 0, result.output
    import csv
    import io

    return list(csv.reader(io.StringIO(result.output)))


def assert_same_cells(profile: Path, report: str, options: list[str]) -> int:
    expected = read_csv(oracle_csv(profile, report))
    ours = our_csv(profile, options)
    assert ours[0] == expected[0], "headers differ"
    assert len(ours) == len(expected), f"{len(ours)} rows, nsys has {len(expected)}"
    # nsys leaves the order of rows with equal Total Time unspecified (it differs between its reports),
    # so rows are compared in order, and within a run of equal totals as a set.
    for i, (a, b) in enumerate(zip(tie_groups(ours[1:]), tie_groups(expected[1:]))):
        assert sorted(a) == sorted(b), f"row group {i} differs:\n ours {a}\n nsys {b}"
    return sum(len(r) for r in expected)


def tie_groups(rows: list[list[str]]) -> list[list[list[str]]]:
    """Consecutive rows grouped by their Total Time cell."""
    groups: list[list[list[str]]] = []
    for row in rows:
        if groups and groups[-1][0][1] == row[1]:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


@pytest.mark.parametrize("report,options", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_matches_nsys(name, report, options):
    fixture_oracle(name, report)
    assert_same_cells(PROFILES / f"{name}.sqlite", report, options)


@pytest.mark.shared
@pytest.mark.parametrize("report,options", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("profile", shared_profiles(), ids=lambda p: p.stem)
def test_shared_profile_matches_nsys(profile, report, options):
    try:
        oracle_csv(profile, report)
    except FileNotFoundError:
        pytest.skip(f"no {report} oracle for {profile.stem}")
    assert_same_cells(profile, report, options)


def test_a_limited_table_keeps_nsys_shares_and_says_of_what():
    """--limit 2: the two heaviest rows of nsys' CSV, cell for cell (their Time (%) of every kernel, not of the two
    shown), and the note says the share is of all the kernels."""
    profile = PROFILES / "gpt_train.sqlite"
    expected = read_csv(oracle_csv(profile, "cuda_gpu_kern_sum"))
    assert our_csv(profile, ["--limit", "2"]) == expected[:3]
    table = CliRunner().invoke(cli, ["kernels", str(profile), "--limit", "2"]).output
    assert "share of the summed GPU time of all the kernels the report covers; --limit shows the 2 heaviest" in table
