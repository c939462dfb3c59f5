"""Golden: the NVTX commands' CSV equals nsys' own (2025.3) CSV, cell for cell, for every profile with an oracle."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURE_NAMES, PROFILES, fixture_oracle, oracle_csv, read_csv, shared_profiles

# (nsys report, our command line, columns of nsys' sort key: rows with equal keys are compared as a set)
VARIANTS = [
    ("nvtx_sum", ["nvtx"], (1,)),
    ("nvtx_kern_sum", ["nvtx-kernels"], (0, 2, 3, 6)),
    ("nvtx_kern_sum_base", ["nvtx-kernels", "--name", "short"], (0, 2, 3, 6)),
    ("nvtx_gpu_proj_sum", ["nvtx-gpu"], (2,)),
    ("nvtx_gpu_proj_trace", ["nvtx-gpu", "--trace"], (1, 2)),
]
IDS = [v[0] for v in VARIANTS]


def our_run(profile: Path, command: list[str]):
    return CliRunner().invoke(cli, [command[0], str(profile), "--format", "csv", *command[1:]])


def tie_groups(rows: list[list[str]], key: tuple[int, ...]) -> list[list[list[str]]]:
    """Consecutive rows grouped by their sort-key cells (nsys leaves the order of ties unspecified)."""
    groups: list[list[list[str]]] = []
    for row in rows:
        if groups and [groups[-1][0][i] for i in key] == [row[i] for i in key]:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def assert_same_cells(profile: Path, report: str, command: list[str], key: tuple[int, ...]) -> None:
    expected = read_csv(oracle_csv(profile, report))
    result = our_run(profile, command)
    if not expected:  # nsys skipped the report: no NVTX data; we say which option to add
        assert result.exit_code == 1 and "--trace=cuda,nvtx" in result.output, result.output
        return
    assert result.exit_code == 0, result.output
    ours = list(csv.reader(io.StringIO(result.output)))
    assert ours[0] == expected[0], "headers differ"
    assert len(ours) == len(expected), f"{len(ours)} rows, nsys has {len(expected)}"
    for i, (a, b) in enumerate(zip(tie_groups(ours[1:], key), tie_groups(expected[1:], key))):
        assert sorted(a) == sorted(b), f"row group {i} differs:\n ours {a}\n nsys {b}"


@pytest.mark.parametrize("report,command,key", VARIANTS, ids=IDS)
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_matches_nsys(name, report, command, key):
    fixture_oracle(name, report)
    assert_same_cells(PROFILES / f"{name}.sqlite", report, command, key)


@pytest.mark.shared
@pytest.mark.parametrize("report,command,key", VARIANTS, ids=IDS)
@pytest.mark.parametrize("profile", shared_profiles(), ids=lambda p: p.stem)
def test_shared_profile_matches_nsys(profile, report, command, key):
    try:
        oracle_csv(profile, report)
    except FileNotFoundError:
        pytest.skip(f"no {report} oracle for {profile.stem}")
    assert_same_cells(profile, report, command, key)
