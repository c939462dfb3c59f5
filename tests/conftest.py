"""Shared test fixtures: the project's own profiles and, opt-in, the reference exports in ../shared."""

from __future__ import annotations

import atexit
import csv
import lzma
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
PROFILES = FIXTURES / "profiles"
ORACLE = FIXTURES / "oracle"
SHARED = ROOT.parent / "shared" / "profiles"
FIXTURE_NAMES = sorted(p.stem for p in PROFILES.glob("*.sqlite"))
RANKS = FIXTURES / "ranks"  # multi-rank runs, one folder each (fixtures/README.md, "Graphs, compile and DDP")
RANK_RUNS = sorted(p.name for p in RANKS.iterdir() if p.is_dir()) if RANKS.is_dir() else []


def pytest_addoption(parser):
    parser.addoption("--shared-profiles", action="store_true",
                     help="also compare against the reference exports in ../shared/profiles")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--shared-profiles"):
        return
    skip = pytest.mark.skip(reason="needs --shared-profiles and ../shared/profiles")
    for item in items:
        if "shared" in item.keywords:
            item.add_marker(skip)


def shared_profiles() -> list[Path]:
    """Reference exports with an oracle folder (empty when ../shared is absent)."""
    return sorted(SHARED.glob("**/*.sqlite")) if SHARED.is_dir() else []


def oracle_csv(profile: Path, report: str) -> Path:
    """The nsys stats CSV of `report` for a profile: fixtures/oracle, shared oracle/, or shared_oracle."""
    stem = profile.stem
    if profile.parent == PROFILES:
        candidates = [ORACLE / stem / f"{stem}_{report}.csv"]
    else:
        candidates = [
            profile.parent / "oracle" / stem / f"{stem}_{report}.csv",
            profile.parent / "oracle" / f"{stem}_{report}.csv",
            FIXTURES / "shared_oracle" / stem / f"{stem}_{report}.csv",
            ORACLE / stem / f"{stem}_{report}.csv",  # fixtures/ranks/* (also when decompressed elsewhere)
        ]
    for c in candidates:
        if c.exists():
            return c
    raise FileNotFoundError(f"no oracle {report} for {profile}")


@cache
def _scratch() -> Path:
    path = Path(tempfile.mkdtemp(prefix="nsys-analytics-rank-fixtures-"))
    atexit.register(shutil.rmtree, path, True)
    return path


@cache
def rank_files(run: str) -> tuple[Path, ...]:
    """The exports of fixtures/ranks/RUN in rank order; `.sqlite.xz` ones decompressed once into a temp folder."""
    out = []
    for f in sorted((RANKS / run).iterdir()):
        if f.name.endswith(".sqlite"):
            out.append(f)
        elif f.name.endswith(".sqlite.xz"):
            target = _scratch() / run / f.name[:-3]
            target.parent.mkdir(exist_ok=True)
            with lzma.open(f) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 22)
            out.append(target)
    return tuple(out)


def read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="session")
def fixture_path():
    return lambda name: PROFILES / f"{name}.sqlite"


@pytest.fixture(autouse=True)
def cache_folder(tmp_path_factory, monkeypatch):
    """Each test gets its own empty cache folder: none writes to ~/.cache or sees another's exports."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(folder))
    return folder
