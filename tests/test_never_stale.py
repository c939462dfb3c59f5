"""An answer is never stale: what is derived from a profile (the kernel checks, a WAL copy, the columnar cache) is
never read for another version of it, even one edited in place with its size and mtime put back; `--no-cache`
reads and writes nothing derived. Each command runs in a process of its own (as users run them), so that what a
process holds (a lease) ends with it."""

from __future__ import annotations

import csv
import io
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import PROFILES

ROOT = Path(__file__).resolve().parent.parent
TRAIN = PROFILES / "gpt_train.sqlite"


def cli(*args, cache: Path, min_size: str = "64M", **env) -> subprocess.CompletedProcess:
    """The CLI in a process of its own, with this cache folder."""
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(cache), "NSYS_ANALYTICS_CACHE_MIN_SIZE": min_size, **env}
    main = "from nsys_analytics.cli.main import main; main()"
    return subprocess.run([sys.executable, "-c", main, *map(str, args)], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def copy(tmp_path: Path, wal: bool = False) -> Path:
    path = tmp_path / "work" / "run.sqlite"
    path.parent.mkdir(exist_ok=True)
    shutil.copyfile(TRAIN, path)
    if wal:
        con = sqlite3.connect(path)
        assert con.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
        con.close()
    return path


def edit_in_place(path: Path, sql: str) -> None:
    """Change the export with sqlite3, then put its size and mtime back (what `touch -r` does)."""
    st = path.stat()
    con = sqlite3.connect(path)
    con.execute(sql)
    con.commit()
    con.close()
    for extra in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        assert not extra.exists() or extra.stat().st_size == 0 or extra.name.endswith("-shm")
        extra.unlink(missing_ok=True)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def first_kernel() -> tuple[int, str, int]:
    """(rowid, short name, instances of that name) of the first kernel, read with sqlite3."""
    con = sqlite3.connect(f"file:{TRAIN}?mode=ro", uri=True)
    try:
        rowid, name_id = con.execute("SELECT rowid, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid "
                                     "LIMIT 1").fetchone()
        name = con.execute("SELECT value FROM StringIds WHERE id = ?", (name_id,)).fetchone()[0]
        n = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE shortName = ?", (name_id,)).fetchone()[0]
    finally:
        con.close()
    return rowid, name, n


def instances(out: str, name: str) -> int:
    """The Instances column of `kernels --name short --format csv` for one kernel name."""
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["Name"] == name]
    assert len(rows) == 1, out
    return int(rows[0]["Instances"])


# A kernel made to end before its start: every report skips it (README, bad input), which the kernel checks find.
BREAK = "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET [end] = start - 1 WHERE rowid = {rowid}"


@pytest.mark.parametrize("wal", [False, True], ids=["rollback", "wal"])
@pytest.mark.parametrize(("options", "min_size"), [([], "64M"), (["--no-cache"], "64M"), ([], "0")],
                         ids=["direct", "no-cache", "columnar"])
def test_an_export_edited_in_place_with_size_and_mtime_kept_gets_a_fresh_answer(tmp_path, wal, options, min_size):
    """Read directly (the kernel checks remembered), with --no-cache, and through the columnar cache."""
    rowid, name, n = first_kernel()
    path, cache = copy(tmp_path, wal), tmp_path / "cache"
    before = cli(*options, "kernels", path, "--name", "short", "--format", "csv", cache=cache, min_size=min_size)
    assert before.returncode == 0, before.stderr
    assert instances(before.stdout, name) == n and "SKIPPED" not in before.stderr
    edit_in_place(path, BREAK.format(rowid=rowid))
    after = cli(*options, "kernels", path, "--name", "short", "--format", "csv", cache=cache, min_size=min_size)
    assert after.returncode == 0, after.stderr
    assert instances(after.stdout, name) == n - 1  # counted with sqlite3 above, less the broken row
    assert "SKIPPED 1 kernel row in every report: 1 ending before its start" in after.stderr


def files_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


@pytest.mark.parametrize("wal", [False, True], ids=["rollback", "wal"])
def test_no_cache_reads_and_writes_nothing_derived(tmp_path, wal):
    path, cache = copy(tmp_path, wal), tmp_path / "cache"
    done = cli("--no-cache", "kernels", path, cache=cache)
    assert done.returncode == 0, done.stderr
    assert files_in(cache) == []  # no kernel checks kept, the WAL copy removed at exit
    assert sorted(p.name for p in path.parent.iterdir()) == ["run.sqlite"]


def wal_copies(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "wal-copies").iterdir() if p.is_dir()) if (cache / "wal-copies").exists() else []


def info(cache: Path) -> dict[str, str]:
    done = cli("cache", "info", "--format", "csv", cache=cache)
    assert done.returncode == 0, done.stderr
    return {r["setting"]: r["value"] for r in csv.DictReader(io.StringIO(done.stdout))}


def test_every_wal_copy_is_counted_bounded_and_cleared_and_older_ones_go(tmp_path):
    path, cache = copy(tmp_path, wal=True), tmp_path / "cache"
    rowid, _, _ = first_kernel()
    assert cli("kernels", path, cache=cache).returncode == 0
    (first,) = wal_copies(cache)
    size = sum(f.stat().st_size for f in files_in(first))
    assert size >= TRAIN.stat().st_size
    shown = info(cache)
    assert shown["wal_copies"] == "1" and float(shown["size_mib"]) >= round(size / 2**20, 1) - 0.1
    edit_in_place(path, BREAK.format(rowid=rowid))
    assert cli("kernels", path, cache=cache).returncode == 0
    (second,) = wal_copies(cache)  # the copy of the older version went when the new one was made
    assert second != first
    # the size bound counts WAL copies: another profile's cache over a bound of one byte removes this copy
    other = tmp_path / "other.sqlite"
    shutil.copyfile(TRAIN, other)
    assert cli("kernels", other, cache=cache, min_size="0", NSYS_ANALYTICS_CACHE_MAX_SIZE="1").returncode == 0
    assert wal_copies(cache) == []
    assert cli("kernels", path, cache=cache).returncode == 0 and len(wal_copies(cache)) == 1
    cleared = cli("cache", "clear", cache=cache)
    assert cleared.returncode == 0, cleared.stderr
    assert wal_copies(cache) == [] and info(cache)["wal_copies"] == "0"


# -- a damaged cache part ----------------------------------------------------------------------------------------
def damage(part: Path, how: str) -> None:
    if how == "overwritten":
        part.write_bytes(b"not a database " * 100)
    elif how == "truncated":
        os.truncate(part, part.stat().st_size // 2)
    else:  # one byte flipped in the middle of the data, which Parquet itself may read as other numbers
        data = bytearray(part.read_bytes())
        data[len(data) // 2] ^= 0xFF
        part.write_bytes(bytes(data))


def status(cache: Path) -> list[str]:
    done = cli("cache", "list", "--format", "csv", cache=cache)
    assert done.returncode == 0, done.stderr
    return [r["status"] for r in csv.DictReader(io.StringIO(done.stdout))]


@pytest.mark.parametrize("how", ["overwritten", "truncated", "flipped"])
def test_a_damaged_cache_part_is_rebuilt_and_the_command_answers_with_a_note(tmp_path, how):
    path, cache = copy(tmp_path), tmp_path / "cache"
    expected = cli("--no-cache", "kernels", path, "--format", "csv", cache=cache)
    assert expected.returncode == 0 and cli("kernels", path, cache=cache, min_size="0").returncode == 0
    (part,) = cache.glob("columnar/*/CUPTI_ACTIVITY_KIND_KERNEL.core.parquet")
    damage(part, how)
    assert status(cache) == ["damaged"]
    for run in range(2):
        got = cli("kernels", path, "--format", "csv", cache=cache, min_size="0")
        assert got.returncode == 0, got.stderr
        assert got.stdout == expected.stdout
        notes = [line for line in got.stderr.splitlines() if "damaged part" in line]
        assert len(notes) == (1 if run == 0 else 0), got.stderr  # one note, then it is whole again
    assert status(cache) == ["current"]


def test_a_damaged_part_that_a_stored_view_reads_is_rebuilt_too(tmp_path):
    path, cache = copy(tmp_path), tmp_path / "cache"
    query = "SELECT count(*), sum(duration_ns) FROM kernels"
    expected = cli("--no-cache", "sql", path, query, "--format", "csv", cache=cache)
    assert cli("kernels", path, cache=cache, min_size="0").returncode == 0  # the core copy, not the kernels view
    (part,) = cache.glob("columnar/*/StringIds.parquet")
    damage(part, "flipped")
    got = cli("sql", path, query, "--format", "csv", cache=cache, min_size="0")
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout and "damaged part" in got.stderr


# -- a cache folder that holds the core kernel copy but not the whole table ---------------------------------------
def test_launch_columns_are_read_from_the_export_when_the_whole_kernel_table_cannot_be_cached(tmp_path):
    """A full disk, made with the file size limit (RLIMIT_FSIZE) between the core copy's size and the whole table's:
    `kernels --by-launch-config` reads the launch columns from the export, as without a cache."""
    big, cache = tmp_path / "big.sqlite", tmp_path / "cache"
    subprocess.run([sys.executable, str(ROOT / "bench" / "scale_profile.py"), str(TRAIN), str(big), "--copies", "20"],
                   check=True, capture_output=True)
    assert cli("kernels", big, cache=cache, min_size="0").returncode == 0
    (core,) = cache.glob("columnar/*/CUPTI_ACTIVITY_KIND_KERNEL.core.parquet")
    expected = cli("--no-cache", "kernels", big, "--by-launch-config", "--format", "csv", cache=cache)
    assert expected.returncode == 0, expected.stderr
    limit = core.stat().st_size + 1  # what the core copy needs, not the whole table (14 columns more)
    code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
            "from nsys_analytics.cli.main import main; sys.argv[0] = 'nsys-analytics'; main()")
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(cache), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0"}
    got = subprocess.run([sys.executable, "-c", code, "kernels", str(big), "--by-launch-config", "--format", "csv"],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout
    assert not (core.parent / "CUPTI_ACTIVITY_KIND_KERNEL.parquet").exists()  # it could not be copied


# -- eviction never removes a cache in use -------------------------------------------------------------------------
READER = """
import sys, nsys_analytics
p = nsys_analytics.open(sys.argv[1])
print(p.sql("SELECT count(*) FROM kernels").rows[0][0], flush=True)
sys.stdin.readline()  # held open while another process evicts
print(p.sql("SELECT count(*), sum(duration_ns) FROM kernels").rows[0][0], flush=True)
print(p.sql("SELECT count(*) FROM cuda_api").rows[0][0], flush=True)  # a part built after the eviction
"""


def test_eviction_never_removes_a_cache_another_process_is_reading(tmp_path):
    path, cache = copy(tmp_path), tmp_path / "cache"
    other = tmp_path / "other.sqlite"
    shutil.copyfile(TRAIN, other)
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(cache), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0"}
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path)], env=env, cwd=ROOT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        count = int(reader.stdout.readline())
        (held,) = cache.glob("columnar/run-*")
        parts = sorted(held.glob("*.parquet"))
        # another profile's cache over a bound of one byte: every other cache would go, least recently used first
        evictor = cli("kernels", other, cache=cache, min_size="0", NSYS_ANALYTICS_CACHE_MAX_SIZE="1")
        assert evictor.returncode == 0, evictor.stderr
        assert parts and sorted(held.glob("*.parquet")) == parts
        out, err = reader.communicate("\n", timeout=300)
        assert reader.returncode == 0, err
        again, calls = (int(v) for v in out.split())
        assert again == count and calls > 0
    finally:
        reader.kill() if reader.poll() is None else None
    # no one reads it now: the next eviction (after a third profile's build) removes it
    third = tmp_path / "third.sqlite"
    shutil.copyfile(TRAIN, third)
    assert cli("kernels", third, cache=cache, min_size="0", NSYS_ANALYTICS_CACHE_MAX_SIZE="1").returncode == 0
    assert not held.exists()


def test_cache_clear_keeps_what_another_process_is_reading(tmp_path):
    path, cache = copy(tmp_path), tmp_path / "cache"
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(cache), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0"}
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path)], env=env, cwd=ROOT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        reader.stdout.readline()
        cleared = cli("cache", "clear", cache=cache)
        assert cleared.returncode == 0 and "removed 0 caches" in cleared.stderr and "1 in use" in cleared.stderr
        out, err = reader.communicate("\n", timeout=300)
        assert reader.returncode == 0, err
    finally:
        reader.kill() if reader.poll() is None else None
    cleared = cli("cache", "clear", cache=cache)
    assert "removed 1 cache " in cleared.stderr and not list(cache.glob("columnar/run-*"))


# -- what an -o writer killed with SIGKILL leaves ------------------------------------------------------------------
def test_the_temporary_file_of_a_killed_output_writer_goes_at_the_next_write_to_its_folder(tmp_path):
    import signal
    import time

    path, cache, out = copy(tmp_path), tmp_path / "cache", tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(cache)}
    main = "from nsys_analytics.cli.main import main; main()"
    query = "SELECT a.start_ns, b.end_ns FROM kernels a, kernels b"  # millions of rows, streamed into the file
    writer = subprocess.Popen([sys.executable, "-c", main, "sql", str(path), query, "--format", "csv",
                               "-o", str(out / "big.csv")], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list(out.glob(".big.*.partial.csv")) and writer.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert writer.poll() is None, "the writer ended before it could be killed"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    (left,) = out.glob(".big.*.partial.csv")
    hour_ago = time.time() - 3600
    os.utime(left, (hour_ago, hour_ago))  # past the grace period
    gone = subprocess.Popen(["true"])
    gone.wait()  # a process id that no longer runs
    keep = {  # a user's files, and ours that are too recent or whose process runs
        ".big.partial.csv": hour_ago, ".notes.12345.partial.csv": hour_ago,
        f".big.{gone.pid}.abcd1234.partial.csv": time.time(), f".big.{os.getpid()}.abcd1234.partial.csv": hour_ago,
    }
    for name, when in keep.items():
        (out / name).write_text("mine")
        os.utime(out / name, (when, when))
    done = cli("kernels", path, "--format", "csv", "-o", out / "small.csv", cache=cache)
    assert done.returncode == 0, done.stderr
    assert not left.exists()
    assert sorted(p.name for p in out.iterdir()) == sorted([*keep, "small.csv"])


def test_cache_list_reads_each_part_whole_once(tmp_path, monkeypatch):
    """A part read whole by one `cache list` and unchanged since is not read again; one changed since is."""
    from click.testing import CliRunner

    from nsys_analytics.data.cache import listing
    from nsys_analytics.cli.main import cli as main

    path, cache = copy(tmp_path), tmp_path / "cache"
    assert cli("kernels", path, cache=cache, min_size="0").returncode == 0
    assert status(cache) == ["current"]
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(cache))
    read = []
    monkeypatch.setattr(listing, "whole", lambda part: read.append(part.name) or True)
    assert "current" in CliRunner().invoke(main, ["cache", "list", "--format", "csv"]).output
    assert read == []
    (part,) = cache.glob("columnar/*/StringIds.parquet")
    damage(part, "flipped")
    monkeypatch.undo()
    assert status(cache) == ["damaged"]


def test_concurrent_commands_under_a_tiny_bound_all_answer(tmp_path):
    """Six commands at once, three times, each evicting every other cache after each part it builds (a bound of one
    byte): none may lose a part it reads ("database does not exist") or the folder its whole kernel table goes to
    ("gridX is not in the core kernel copy"). Before leases, 3 of 24 such commands failed in one run (0 in another):
    a stress check beside the deterministic test above."""
    profiles = []
    for i in range(6):
        profiles.append(tmp_path / f"p{i}.sqlite")
        shutil.copyfile(TRAIN, profiles[-1])
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(tmp_path / "cache"), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0",
           "NSYS_ANALYTICS_CACHE_MAX_SIZE": "1"}
    main = "from nsys_analytics.cli.main import main; main()"
    for round_ in range(3):
        commands = [["nvtx-kernels"] if i % 2 else ["kernels", "--by-launch-config"] for i in range(6)]
        procs = [subprocess.Popen([sys.executable, "-c", main, *cmd, str(profiles[(i + round_) % 6])], env=env,
                                  cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for i, cmd in enumerate(commands)]
        errors = [p.communicate(timeout=300)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 6, errors
