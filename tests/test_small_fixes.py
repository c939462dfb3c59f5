"""Small things users noticed (issue #26): each test here failed before its fix."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.data import cache

from .conftest import PROFILES

GOOD = PROFILES / "no_nvtx.sqlite"
REPORT = PROFILES / "no_nvtx.nsys-rep"


def run(*args) -> object:
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def cached(monkeypatch, tmp_path):
    folder = tmp_path / "cache"
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(folder))
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    return folder


@pytest.fixture
def fake_nsys(tmp_path, monkeypatch):
    """A stand-in `nsys` on PATH whose `export` copies a real export to --output."""
    bindir = tmp_path / "fake-bin"
    bindir.mkdir()
    script = bindir / "nsys"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import shutil, sys
        args = sys.argv[1:]
        if args == ["--version"]:
            print("NVIDIA Nsight Systems version 2025.3.1.90-253135822126v0")
            sys.exit(0)
        shutil.copy({str(GOOD)!r}, args[args.index("--output") + 1])
        """))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _csv(result) -> dict[str, str]:
    assert result.exit_code == 0, result.output
    return dict(line.split(",", 1) for line in result.output.splitlines()[1:])


# -- item 1: the cache commands count and remove exports, remembered results and dead spill folders ---------------
def test_cache_counts_and_clears_a_reports_export(cached, fake_nsys, tmp_path):
    rep, other = tmp_path / "run.nsys-rep", tmp_path / "other.sqlite"
    shutil.copy(REPORT, rep)
    shutil.copy(GOOD, other)
    for p in (rep, other):
        assert run("kernels", p, "--format", "csv").exit_code == 0
    exports = list((cached / "exports").glob("*.sqlite"))
    assert len(exports) == 1 and len(cache.entries()) == 2  # the export's columnar cache and other's
    dead = cached / f".duckdb-tmp-{_dead_pid()}-0badf00d"
    live = cached / f".duckdb-tmp-{os.getpid()}-0badf00d"
    for spill in (dead, live):
        spill.mkdir()
        (spill / "duckdb_temp_storage-0.tmp").write_bytes(b"x" * 1000)

    info = _csv(run("cache", "info", "--format", "csv"))
    assert info["exports"] == "1" and info["dead_spills"] == "1"
    on_disk = sum(f.stat().st_size for f in cached.rglob("*") if f.is_file() and live not in f.parents)
    assert float(info["size_mib"]) == round(on_disk / 2**20, 1)  # every file but a live connection's spill
    listing = run("cache", "list", "--format", "csv").output.splitlines()
    assert sum(",export," in line for line in listing) == 1

    cleared = run("cache", "clear", rep)
    assert cleared.exit_code == 0, cleared.output
    assert "removed 1 cache, 1 report export" in cleared.output and "1 spill folder" in cleared.output
    assert not exports[0].exists() and not dead.exists() and live.exists()
    assert [f.name.startswith("other-") for f in cache.entries()] == [True]  # the other profile's cache stays
    left = [f for f in cached.rglob("*") if f.is_file() and "other-" not in str(f.relative_to(cached))
            and live not in f.parents]
    assert [f.parent.name for f in left] == ["digests"] * len(left)  # named by file facts: only a whole clear
    run("cache", "clear")
    assert [f for f in cached.rglob("*") if f.is_file() and live not in f.parents] == []


# -- item 2: nsys 2020.3 exports give GPU memory in MiB, in TARGET_INFO_CUDA_GPU ----------------------------------
def test_2020_3_gpu_memory_is_mib(tmp_path):
    """Two V100s as nsys 2020.3 exports them (the schema of the quasiben/nvtx-examples export): TARGET_INFO_GPU
    names them, TARGET_INFO_CUDA_GPU has 16160 MiB, 80 SMs and compute 7.0."""
    import sqlite3

    import nsys_analytics

    path = tmp_path / "v100_2020_3.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, deviceId INTEGER NOT NULL, name TEXT,
                                      busLocation TEXT, isDiscrete INTEGER);
        CREATE TABLE TARGET_INFO_CUDA_GPU (vmId INTEGER NOT NULL, name TEXT NOT NULL, pciBusId TEXT,
            globalMemoryBandwidth INTEGER NOT NULL, globalMemorySize INTEGER NOT NULL,
            numMultiprocessors INTEGER NOT NULL, computeCapabilityMajor INTEGER NOT NULL,
            computeCapabilityMinor INTEGER NOT NULL, deviceId INTEGER NOT NULL, pid INTEGER);
        INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'Tesla V100-SXM2-16GB', '0000:06:00.0', 1),
                                           (1, 1, 'Tesla V100-SXM2-16GB', '0000:07:00.0', 1);
        INSERT INTO TARGET_INFO_CUDA_GPU VALUES
            (1, 'Tesla V100-SXM2-16GB', '<UNKNOWN_BUS_ID>', 898048000, 16160, 80, 7, 0, 0, 42),
            (1, 'Tesla V100-SXM2-16GB', '<UNKNOWN_BUS_ID>', 898048000, 16160, 80, 7, 0, 1, 42);
    """)
    con.commit()
    con.close()
    with nsys_analytics.open(path) as p:
        rows = p.sql("SELECT device, name, bus_location, memory_bytes, sm_count, compute_capability "
                     "FROM devices ORDER BY device").rows
    assert [tuple(r) for r in rows] == [
        (0, "Tesla V100-SXM2-16GB", "0000:06:00.0", 16160 * 1024 * 1024, 80, "7.0"),
        (1, "Tesla V100-SXM2-16GB", "0000:07:00.0", 16160 * 1024 * 1024, 80, "7.0")]
    shown = run("info", path)
    assert shown.exit_code == 0, shown.output
    assert shown.output.count("Tesla V100-SXM2-16GB  16 GiB  80 SMs  compute 7.0") == 2  # 16160 MiB = 15.8 GiB


# -- item 3: the writer version of a .nsys-rep is its session record's, not any version-like string ---------------
def _field(number: int, value: bytes) -> bytes:
    assert len(value) < 128  # one-byte lengths and tags: enough for these records
    return bytes([number << 3 | 2, len(value)]) + value


def _report(version: bytes, number: bytes, decoy: bytes = b"") -> bytes:
    """A report as nsys writes one: the header, event data, then the session record (fields 2, 4, 5, 6, 7)."""
    record = (_field(2, b"0a2749b5-e081-46e9-a97a-0586e9d2205e") + _field(4, b"2026-11-21T05:49:15")
              + _field(5, b"vm") + _field(6, version) + _field(7, number) + _field(20, number))
    return b"NVIDIA Tegra Profiler Report 36398880.\n" + b"\x00" * 4000 + record + decoy + b"\x00" * 100


@pytest.mark.parametrize("version, number, decoy, expected", [
    (b"2025.3.1.0", b"36398880", b"", "2025.3.1"),
    (b"2024.6.1.90", b"37000000", b"", "2024.6.1"),  # another format number: was "a newer nsys"
    (b"2024.6.1.90", b"37000000", b"\x12/opt/nvidia/nsight-systems/2023.4:\x0836398880", "2024.6.1"),  # was 2023.4
    (b"not a version", b"36398880", b"", None),
])
def test_report_writer_version_from_the_session_record(tmp_path, version, number, decoy, expected):
    from nsys_analytics.data.source import report_writer_version

    rep = tmp_path / "run.nsys-rep"
    rep.write_bytes(_report(version, number, decoy))
    assert report_writer_version(rep) == expected


def test_real_reports_writer_version_matches_the_nsys_that_captured_them():
    """The fixtures' reports were captured by the nsys at /opt/nvidia/nsight-compute/2025.3.1/... (the exports'
    META_DATA_CAPTURE records the command's environment)."""
    import sqlite3

    from nsys_analytics.data.source import report_writer_version

    con = sqlite3.connect(f"file:{GOOD}?mode=ro", uri=True)
    env = " ".join(v for (v,) in con.execute("SELECT value FROM META_DATA_CAPTURE WHERE name LIKE '%ENVIRONMENT%'"))
    con.close()
    assert "nsight-compute/2025.3.1/host/target-linux-x64/nsys" in env
    assert report_writer_version(REPORT) == "2025.3.1"


# -- item 5: nccl --trace says "bytes unknown" where the export has no sizes, and lists them where it has --------
@pytest.mark.parametrize("name, note", [
    ("ddp_straggler", "bytes unknown for all 126 NCCL kernels: the export has NCCL's NVTX ranges but not their"),
    ("ddp_straggler_json", "Message sizes known for all 126 NCCL kernels"),
])
def test_nccl_trace_says_which_sizes_are_known(name, note):
    import csv
    import io
    import json

    from .conftest import rank_files

    files = [str(p) for p in rank_files(name)]
    table = run("nccl", *files, "--trace", "--jobs", "1")
    assert table.exit_code == 0, table.output
    assert note in table.output
    as_json = json.loads(run("nccl", *files, "--trace", "--jobs", "1", "--format", "json").output)
    assert note in " ".join(as_json["notes"])
    rows = list(csv.DictReader(io.StringIO(run("nccl", *files, "--trace", "--jobs", "1", "--format", "csv").output)))
    sizes = [r["bytes"] for r in rows]
    assert len(rows) == 126 and (all(sizes) if name.endswith("json") else not any(sizes))
    if name.endswith("json"):  # the fp32 parameters of ddp_train.py (test_ranks_ddp.py): the start-up broadcast
        assert max(int(s) for s, r in zip(sizes, rows) if r["op"] == "Broadcast") == 268_615_680


# -- item 7: unknown range names: closest first, exit 2, no advice to add a range that exists ---------------------
FORWARD = PROFILES / "gpt_forward.sqlite"  # ranges: :scaled_dot_product_attention, :forward, :computing_softmax, ...


@pytest.mark.parametrize("args, option, closest", [
    (["attention", FORWARD, "--attention-range", "scaled_dot_prodct"], "--attention-range",
     ":scaled_dot_product_attention"),
    (["attention", FORWARD, "--softmax-range", "softmx"], "--softmax-range", ":computing_softmax"),
    (["report", "--forward", FORWARD, "--forward-range", "forwrd"], "--forward-range", ":forward"),
])
def test_an_unknown_range_name_is_a_usage_error_listing_the_closest_first(args, option, closest):
    result = run(*args)
    assert result.exit_code == 2, result.output  # core/errors.py: a name that does not exist
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert f"(closest first: {closest}, " in lines[0] and lines[0].endswith(f"pass one of them with {option}")
    assert "annotate" not in lines[0]  # the profile has the range the old advice told to add


def test_a_missing_default_range_says_how_to_add_it():
    """gpt_renamed_forward names its attention range `attention`: the default is missing data (exit 1), and adding
    the default range is advice about a range the profile does not have."""
    result = run("attention", PROFILES / "gpt_renamed_forward.sqlite")
    assert result.exit_code == 1, result.output
    assert "no NVTX range named 'scaled_dot_product_attention' (closest first: " in result.output
    assert "nvtx.annotate('scaled_dot_product_attention')" in result.output


def test_skip_reasons_of_the_reference_export_tests_name_the_flag():
    """Where ../shared/profiles is absent their parameter set is empty: pytest's own reason ("got empty parameter
    set") said nothing of --shared-profiles."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-m", "shared",
                           "tests/test_kernels_oracle.py", "tests/test_nvtx_oracle.py"],
                          cwd=Path(__file__).parent.parent, capture_output=True, text=True, timeout=300)
    reasons = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert reasons and all("needs --shared-profiles" in line for line in reasons), done.stdout


@pytest.mark.parametrize("args, said", [
    (["ranks", "{RANK0}"], "1 rank (rank ids from"),
    (["sql", GOOD, "SELECT 1 AS x", "--format", "csv", "-o", "{OUT}"], "wrote 1 row to"),
    (["sql", GOOD, "SELECT 1 AS x", "--format", "parquet", "-o", "{OUT}"], "wrote 1 row to"),
])
def test_one_is_singular(tmp_path, args, said):
    from .conftest import rank_files

    subs = {"{RANK0}": str(rank_files("ddp_straggler")[0]), "{OUT}": str(tmp_path / "out.file")}
    result = run(*[subs.get(str(a), a) for a in args])
    assert result.exit_code == 0, result.output
    assert said in result.output


def test_no_count_prints_a_plural_noun_without_choosing():
    """The grammar rule over the package: an f-string that prints a count of rows or ranks goes through
    core/words.plural (a literal "{n} rows" reads "1 rows")."""
    import re

    root = Path(__file__).parent.parent / "nsys_analytics"
    bad = re.compile(r"\{len\([^)]*\)\} (ranks|rows)\b|\{seen\[0\]\} rows")
    found = [f"{p.relative_to(root)}:{i}" for p in root.rglob("*.py")
             for i, line in enumerate(p.read_text().splitlines(), 1) if bad.search(line)]
    assert found == []


# -- item 8: the default engine runs small work in this process; --jobs N still gets a pool ------------------------
def _pid(_item) -> int:
    return os.getpid()


def test_small_exports_run_in_this_process_unless_jobs_is_given(monkeypatch):
    from nsys_analytics.data import engine
    from .conftest import rank_files

    files = [str(p) for p in rank_files("ddp_straggler")]  # about 1 MB each
    assert set(engine.LocalPool().map(_pid, files)) == {os.getpid()}
    assert os.getpid() not in engine.LocalPool(2).map(_pid, files)  # asked for: the pool
    monkeypatch.setattr(engine, "IN_PROCESS_BELOW", sum(os.path.getsize(f) for f in files))  # just over the bound
    assert not engine.small_work(files)
    assert not engine.small_work([*files[:1], str(REPORT)])  # a report: nsys exports it, in a worker


def test_the_engine_choice_leaves_the_output_alone():
    from .conftest import rank_files

    files = [str(p) for p in rank_files("ddp_straggler")]
    outputs = {jobs: run("kernels", *files, "--format", "csv", *jobs).output for jobs in ((), ("--jobs", "2"))}
    assert outputs[()] == outputs[("--jobs", "2")] and outputs[()].count("\n") > 20


def test_cache_clear_leaves_a_running_commands_partial_export(cached):
    """A hidden `.<name>.<pid>.partial` file is an export another command is writing: not removed while it runs."""
    exports = cached / "exports"
    exports.mkdir(parents=True)
    live = exports / f".run-0a1b2c3d-ff.sqlite.{os.getpid()}.partial.sqlite"
    dead = exports / f".run-0a1b2c3d-ff.sqlite.{_dead_pid()}.partial.sqlite"
    for f in (live, dead):
        f.write_bytes(b"x")
    assert run("cache", "clear").exit_code == 0
    assert live.exists() and not dead.exists()
