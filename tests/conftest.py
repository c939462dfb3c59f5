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

from . import worker_crashes

pytest_handlecrashitem = worker_crashes.pytest_handlecrashitem  # an xdist hook: pytest finds hooks in conftest.py

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
PROFILES = FIXTURES / "profiles"
ORACLE = FIXTURES / "oracle"
SHARED = ROOT.parent / "shared" / "profiles"
FIXTURE_NAMES = sorted(p.stem for p in PROFILES.glob("*.sqlite"))
RANKS = FIXTURES / "ranks"  # multi-rank runs, one folder each (fixtures/README.md, "Graphs, compile and DDP")
RANK_RUNS = sorted(p.name for p in RANKS.iterdir() if p.is_dir()) if RANKS.is_dir() else []


# Oracle tests run in five modes: reading the SQLite export directly; through the columnar cache (built once per
# fixture in this session's cache folder, then read); from a parquetdir folder made from the same export
# (to_parquetdir below: a conversion of ours, for every fixture); and, for the fixtures that have them, from the
# folders nsys itself wrote of the same report (`nsys export --type parquetdir` / `arrowdir`:
# profiles/NAME_parquetdir/, profiles/NAME_arrowdir/; other fixtures' tests in those modes are deselected).
# Every other test reads directly (fixtures are below the cache's minimum size) and never touches the user's own
# cache folder.
NSYS_FORMS = ("parquetdir", "arrowdir")
CACHE_MODES = ("direct", "cached", "parquetdir", *(f"nsys-{form}" for form in NSYS_FORMS))
BOTH_CACHE_MODES = ("test_kernels_oracle", "test_nvtx_oracle", "test_diagnose_oracle")


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory):
    return tmp_path_factory.mktemp("nsys-analytics-cache")


def to_parquetdir(sqlite: Path, folder: Path) -> Path:
    """Every table of an SQLite export as `folder/<TABLE>.parquet`, rows in rowid order (as nsys' parquetdir)."""
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        con.execute("SET preserve_insertion_order = true")
        from nsys_analytics.data.database import _sqlite_extension_path

        con.execute(f"LOAD '{_sqlite_extension_path()}'")
        con.execute(f"ATTACH '{sqlite}' AS s (TYPE sqlite, READ_ONLY)")
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                             "WHERE table_catalog = 's'").fetchall()]
        for table in tables:
            copy = f'COPY (SELECT * FROM s."{table}" ORDER BY rowid) TO \'{folder / table}.parquet\' (FORMAT parquet)'
            try:
                con.execute(copy)
            except duckdb.TypeMismatchException:  # old `nsys stats` wrote its tables' floats into INTEGER columns
                con.execute("SET sqlite_all_varchar = true")
                con.execute(copy)
                con.execute("SET sqlite_all_varchar = false")
    finally:
        con.close()
    return folder


@pytest.fixture(scope="session")
def parquet_root(tmp_path_factory):
    return tmp_path_factory.mktemp("parquetdir")


@pytest.fixture(autouse=True)
def piped_width(monkeypatch):
    """Outputs are compared as piped (tables whole), whatever COLUMNS the shell exports; test_terminal_width
    sets it per call."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True)
def cache_mode(request, monkeypatch, cache_folder, cache_root, parquet_root):
    """'direct', 'cached' or 'parquetdir': how this test's profiles are read. A direct test keeps its own empty
    cache folder (`cache_folder`); the other modes share one, so a profile's cache is built once a session."""
    mode = getattr(request, "param", "direct")
    if mode.startswith("nsys-"):  # a fixture export is read from the folder nsys wrote of the same report
        from nsys_analytics.data import source

        resolve, form = source.resolve, mode.removeprefix("nsys-")

        def written(path):
            p = Path(path)
            folder = nsys_folder(p.stem, form)
            return folder if p.suffix == ".sqlite" and p.parent == PROFILES and folder.is_dir() else resolve(path)

        monkeypatch.setattr(source, "resolve", written)
    if mode == "parquetdir":  # a fixture export is read from its parquetdir twin
        from nsys_analytics.data import source

        resolve = source.resolve

        def twin(path):
            p = Path(path)
            if p.suffix != ".sqlite" or not p.exists():
                return resolve(path)
            folder = parquet_root / f"{p.stem}-{abs(hash(str(p.resolve())))}"
            return folder if folder.is_dir() else to_parquetdir(resolve(path), folder)

        monkeypatch.setattr(source, "resolve", twin)
    if mode != "direct":
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(cache_root))
    monkeypatch.delenv("NSYS_ANALYTICS_NO_CACHE", raising=False)
    monkeypatch.delenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", raising=False)
    monkeypatch.setattr("nsys_analytics.data.cache.folder._disabled", False)  # --no-cache of an earlier CliRunner test
    if mode == "cached":
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    return mode


def pytest_generate_tests(metafunc):
    if metafunc.module.__name__.rsplit(".", 1)[-1] in BOTH_CACHE_MODES:
        metafunc.parametrize("cache_mode", CACHE_MODES, indirect=True)


def pytest_addoption(parser):
    parser.addoption("--shared-profiles", action="store_true",
                     help="also compare against the reference exports in ../shared/profiles")
    # `make test`: a run killed by a signal (a native crash in DuckDB's SQLite reader, README.md) is run again
    # without the tests the first run passed, instead of the whole suite a second time.
    parser.addoption("--record-passed", metavar="FILE", type=Path,
                     help="append the id of each test that passes to FILE, as it passes")
    parser.addoption("--skip-passed", metavar="FILE", type=Path,
                     help="deselect the tests whose ids FILE lists (a run killed before it ended)")


def pytest_runtest_logreport(report):
    """--record-passed: a test's id once all its phases passed or it was skipped (its teardown reports last)."""
    if (report.when == "call" and report.passed) or (report.when in ("setup", "call") and report.skipped):
        _passing.add(report.nodeid)
    elif report.when == "teardown" and report.passed and report.nodeid in _passing and _record is not None:
        with open(_record, "a", encoding="utf-8") as f:
            f.write(report.nodeid + "\n")


_record: Path | None = None
_passing: set[str] = set()


def pytest_configure(config):
    global _record
    # under xdist the controller sees every worker's reports and records them; the workers record nothing
    _record = None if hasattr(config, "workerinput") else config.getoption("--record-passed")


def nsys_folder(name: str, form: str) -> Path:
    """The folder `nsys export --type FORM` wrote of the report behind profiles/NAME.sqlite (may not exist)."""
    return PROFILES / f"{name}_{form}"


def _without_nsys_folder(item) -> bool:
    """A test in an nsys-parquetdir/arrowdir mode for a profile that has no such folder."""
    params = item.callspec.params if hasattr(item, "callspec") else {}
    mode = params.get("cache_mode", "")
    return mode.startswith("nsys-") and not nsys_folder(str(params.get("name")), mode[5:]).is_dir()


def pytest_collection_modifyitems(config, items):
    done = config.getoption("--skip-passed")
    passed = set(done.read_text(encoding="utf-8").split("\n")) if done is not None and done.exists() else set()
    deselected = [item for item in items if _without_nsys_folder(item) or item.nodeid in passed]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not (_without_nsys_folder(item) or item.nodeid in passed)]
    reason = _shared_skip_reason(config)
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "shared" in item.keywords:
            item.add_marker(skip, append=False)  # first: over "got empty parameter set" where ../shared is absent


def _shared_skip_reason(config) -> str | None:
    """Why the tests of the reference exports do not run, or None where they do."""
    if not config.getoption("--shared-profiles"):
        return f"needs --shared-profiles (the reference exports in {SHARED})"
    if not SHARED.is_dir():
        return f"--shared-profiles given, but {SHARED} is absent"
    return None


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


def fixture_oracle(name: str, report: str) -> Path:
    """The oracle of a project fixture; the test is skipped where nsys was not asked for that report (the
    gpt_train_cols fixture has the default reports only: fixtures/README.md)."""
    path = ORACLE / name / f"{name}_{report}.csv"
    if not path.exists():
        pytest.skip(f"no `nsys stats` {report} oracle was made for {name} (fixtures/README.md)")
    return path


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


@cache
def unpacked(path: Path) -> Path:
    """A fixture's `.sqlite.xz` decompressed once into a temp folder (the fixture itself is never touched)."""
    target = _scratch() / "unpacked" / path.parent.name / path.name[:-3]
    target.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path) as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 22)
    return target


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
