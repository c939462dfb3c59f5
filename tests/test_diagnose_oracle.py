"""Golden: `nsys-analytics diagnose --rule R --format csv` equals `nsys analyze --rule R`, cell for cell."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diagnose import NSYS_RULES

from .conftest import FIXTURE_NAMES, PROFILES, oracle_csv, read_csv, shared_profiles


def _analyzed(profile: Path) -> bool:
    """Shared profiles that come with `nsys analyze` CSVs (the public ones have only `nsys stats`)."""
    try:
        return oracle_csv(profile, "analyze_gpu_gaps").exists()
    except FileNotFoundError:
        return False


def our_rows(profile: Path, rule: str) -> list[list[str]]:
    result = CliRunner().invoke(cli, ["diagnose", str(profile), "--window", "all", "--no-graphs", "--rule", rule,
                                      "--format", "csv"])  # nsys analyze: the whole capture, graphs left out
    assert result.exit_code == 0, result.output
    return list(csv.reader(io.StringIO(result.stdout)))


def assert_same_cells(profile: Path, rule: str) -> None:
    expected = read_csv(oracle_csv(profile, f"analyze_{rule}"))
    ours = our_rows(profile, rule)
    if not expected:  # nsys writes an empty file when the rule finds nothing or is skipped
        assert len(ours) <= 1, ours
        return
    assert ours == expected


@pytest.mark.parametrize("rule", list(NSYS_RULES))
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_matches_nsys_analyze(name, rule):
    assert_same_cells(PROFILES / f"{name}.sqlite", rule)


@pytest.mark.shared
@pytest.mark.parametrize("rule", list(NSYS_RULES))
@pytest.mark.parametrize("profile", [p for p in shared_profiles() if _analyzed(p)], ids=lambda p: p.stem)
def test_shared_matches_nsys_analyze(profile, rule):
    assert_same_cells(profile, rule)


def test_time_window_keeps_what_overlaps_it():
    profile = PROFILES / "gpt_train.sqlite"
    rows = our_rows(profile, "cuda_api_sync")[1:]
    start = sorted(int(r[1]) for r in rows)[len(rows) // 2]
    result = CliRunner().invoke(cli, ["diagnose", str(profile), "--rule", "cuda_api_sync", "--format", "csv",
                                      "--start", f"{start}ns"])
    windowed = list(csv.reader(io.StringIO(result.output)))[1:]
    assert windowed and len(windowed) < len(rows)
    assert all(int(r[1]) + int(r[0]) >= start for r in windowed)


@pytest.mark.shared
@pytest.mark.parametrize("profile", shared_profiles(), ids=lambda p: p.stem)
def test_every_shared_profile_diagnoses(profile):
    result = CliRunner().invoke(cli, ["diagnose", str(profile), "--format", "json"])
    assert result.exit_code == 0, result.output
