"""The columnar cache: built once and read after, never stale, atomic, bounded, and off on request.

That its answers equal the export's is checked by the oracle tests, which run in both modes (conftest.py)."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.data import cache, sql_files
from nsys_analytics.cli.main import cli
from nsys_analytics.data.cache.parts import write as parts_write

from .conftest import PROFILES

ROOT = Path(__file__).resolve().parent.parent
TRAIN = PROFILES / "gpt_train.sqlite"
FORWARD = PROFILES / "gpt_forward.sqlite"


@pytest.fixture
def cached(monkeypatch, tmp_path):
    """Caching on for every profile, in a fresh cache folder; returns the folder."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(folder))
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    return folder


def kernel_count(path: Path) -> int:
    with nsys_analytics.open(path) as p:
        return p.sql("SELECT count(*) FROM kernels").rows[0][0]


def direct_kernel_count(path: Path) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    finally:
        con.close()


def parts(folder: Path) -> set[str]:
    return {f.name for d in (folder / "columnar").iterdir() if d.is_dir() for f in d.glob("*.parquet")}


def test_first_query_builds_what_it_reads_and_later_ones_read_it(cached):
    with nsys_analytics.open(TRAIN) as p:
        p.kernel_summary()
        # kernels reads graph_executions too (kernels --graphs), an empty table in this profile; without a filter
        # it reads the statistics per name, a decoded view built from the kernel table
        assert set(p._cache.attached) == {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "StringIds",
                                          "_kernel_name_stats"}
    assert parts(cached) - {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE.parquet"} == {
        "CUPTI_ACTIVITY_KIND_KERNEL.core.parquet", "StringIds.parquet",  # the kernels without launch columns
        "_kernel_name_stats.parquet"}
    (folder,) = cache.entries()
    built = {f: f.stat().st_mtime_ns for f in folder.iterdir()}
    assert kernel_count(TRAIN) == direct_kernel_count(TRAIN)
    assert "kernels.parquet" in parts(cached)  # a decoded view, built from the cached raw tables
    # it reads launch columns: the whole kernel table replaces the core copy; the rest is read, not rebuilt
    assert "CUPTI_ACTIVITY_KIND_KERNEL.parquet" in parts(cached)
    assert "CUPTI_ACTIVITY_KIND_KERNEL.core.parquet" not in parts(cached)
    core = "CUPTI_ACTIVITY_KIND_KERNEL.core.parquet"
    assert all(f.stat().st_mtime_ns == t for f, t in built.items() if not f.name.startswith(core))


def test_no_cache_option_and_small_profiles_build_nothing(cached, monkeypatch):
    result = CliRunner().invoke(cli, ["--no-cache", "kernels", str(TRAIN)])
    assert result.exit_code == 0, result.output
    monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1")
    assert kernel_count(TRAIN) > 0
    monkeypatch.delenv("NSYS_ANALYTICS_NO_CACHE")
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "64M")  # the fixture is below it
    assert kernel_count(TRAIN) > 0
    assert not cached.exists() or not cache.entries()


def test_by_default_a_profile_of_4_mib_is_cached_and_a_smaller_one_read_directly(monkeypatch, tmp_path):
    """The default minimum (docs/cache.md, Break-even): 4 MiB, where the cache pays back within a few runs."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(folder))
    monkeypatch.delenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", raising=False)
    small, large = tmp_path / "small.sqlite", tmp_path / "large.sqlite"
    for target, copies in ((small, 10), (large, 11)):  # 3.8 and 4.2 MiB of the 0.7 MB fixture
        subprocess.run([sys.executable, str(ROOT / "bench" / "scale_profile.py"), str(TRAIN), str(target),
                        "--copies", str(copies)], check=True, capture_output=True)
    assert small.stat().st_size < 4 * 2**20 <= large.stat().st_size
    assert kernel_count(small) > 0 and not cache.entries()
    assert kernel_count(large) > kernel_count(small)
    (entry,) = cache.entries()
    assert entry.name.startswith("large-") and [p for p in entry.iterdir() if p.suffix == ".parquet"]


def test_nothing_is_written_beside_the_profile(cached, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(TRAIN, work / "t.sqlite")
    kernel_count(work / "t.sqlite")
    assert [p.name for p in work.iterdir()] == ["t.sqlite"]
    assert cache.entries()


def test_a_profile_changed_in_place_never_reads_the_stale_cache(cached, tmp_path):
    f = tmp_path / "t.sqlite"
    shutil.copy(TRAIN, f)
    before = kernel_count(f)
    st = f.stat()
    con = sqlite3.connect(f)
    con.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 2 = 0")
    con.commit()
    con.close()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime, same size: only the content differs
    assert f.stat().st_size == st.st_size
    after = kernel_count(f)
    assert after == direct_kernel_count(f) < before
    assert len(cache.entries()) == 1  # the stale cache is gone


def test_a_replaced_profile_never_reads_the_stale_cache(cached, tmp_path):
    f = tmp_path / "t.sqlite"
    shutil.copy(TRAIN, f)
    assert kernel_count(f) == direct_kernel_count(TRAIN)
    shutil.copy(FORWARD, tmp_path / "new.sqlite")
    os.replace(tmp_path / "new.sqlite", f)
    assert kernel_count(f) == direct_kernel_count(FORWARD) != direct_kernel_count(TRAIN)


def _run_cli(*args: str, cache_folder: Path) -> subprocess.Popen:
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(cache_folder), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0"}
    main = "from nsys_analytics.cli.main import main; main()"
    return subprocess.Popen([sys.executable, "-c", main, *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_processes_building_the_same_cache_both_succeed(cached):
    query = "SELECT count(*), sum(duration_ns) FROM kernels"
    procs = [_run_cli("sql", str(TRAIN), query, "--format", "csv", cache_folder=cached) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert len({o for o, _ in outs}) == 1
    direct = CliRunner().invoke(cli, ["--no-cache", "sql", str(TRAIN), query, "--format", "csv"])
    assert outs[0][0] == direct.output
    (folder,) = cache.entries()
    assert not [f for f in folder.iterdir() if f.name.startswith(".")]  # no temporary file left


def test_a_killed_build_leaves_nothing_half_made(cached, tmp_path):
    big = tmp_path / "big.sqlite"  # large enough that the build takes a while
    subprocess.run([sys.executable, str(ROOT / "bench" / "scale_profile.py"), str(TRAIN), str(big),
                    "--copies", "60"], check=True, capture_output=True)
    proc = _run_cli("sql", str(big), "SELECT count(*) FROM cuda_api", cache_folder=cached)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if any(cached.glob("columnar/*/.*.tmp")):
            # stopped, it cannot rename the file between this look and the kill (it did now and then)
            proc.send_signal(signal.SIGSTOP)
            if any(cached.glob("columnar/*/.*.tmp")):
                break
            proc.send_signal(signal.SIGCONT)
        time.sleep(0.002)
    assert proc.poll() is None, "the build ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (folder,) = cache.entries()
    assert [f for f in folder.iterdir() if f.name.startswith(".")]  # its temporary file, never read
    finished = {f.name for f in folder.glob("*.parquet")}
    with nsys_analytics.open(big) as p:
        assert p.sql("SELECT count(*) FROM cuda_api").rows[0][0] > 0
    assert not [f for f in folder.iterdir() if f.name.startswith(".")]  # removed by the next build
    for name in finished:  # every file the killed process renamed into place was complete
        assert (folder / name).stat().st_size > 0


def test_a_digest_left_half_written_by_a_killed_build_is_removed_by_the_next_build(cached):
    """A build killed between writing a part's digest and renaming it into place (parts.seal) leaves a `.partial`."""
    assert kernel_count(TRAIN) > 0
    (folder,) = cache.entries()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    orphan = folder / f".CUPTI_ACTIVITY_KIND_RUNTIME.parquet.xxh3.{int(gone.stdout)}.partial"
    orphan.write_text("0" * 32)
    mine = folder / f".StringIds.parquet.xxh3.{os.getpid()}.partial"  # a live writer's is left alone
    mine.write_text("0" * 32)
    with nsys_analytics.open(TRAIN) as p:
        assert p.sql("SELECT count(*) FROM cuda_api").rows[0][0] > 0  # builds the runtime table's part
    assert not orphan.exists() and mine.exists()


def test_least_recently_used_caches_go_first_when_over_the_bound(cached, tmp_path, monkeypatch):
    copies = []
    for i in range(3):
        copies.append(tmp_path / f"p{i}.sqlite")
        shutil.copy(TRAIN, copies[-1])
        kernel_count(copies[-1])
        time.sleep(0.01)
    kernel_count(copies[0])  # used last
    folders = cache.entries()
    sizes = [cache.size_of(f) for f in folders]
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MAX_SIZE", str(sum(sizes) - 1))
    removed = cache.evict()
    assert removed == [folders[0]] and folders[0].name.startswith("p1-")
    assert [f.name[:2] for f in cache.entries()] == ["p2", "p0"]


def test_cache_list_info_clear(cached, tmp_path):
    kernel_count(TRAIN)
    f = tmp_path / "gone.sqlite"
    shutil.copy(FORWARD, f)
    kernel_count(f)
    f.unlink()
    runner = CliRunner()
    listing = runner.invoke(cli, ["cache", "list", "--format", "csv"])
    assert listing.exit_code == 0, listing.output
    lines = listing.output.splitlines()
    assert lines[0] == "profile,status,parts,size_mib,last_used,folder"
    assert sorted(line.split(",")[1] for line in lines[1:]) == ["current", "missing"]
    info = runner.invoke(cli, ["cache", "info", "--format", "csv"])
    assert f"folder,{cached}" in info.output and "profiles,2" in info.output
    one = runner.invoke(cli, ["cache", "clear", str(TRAIN)])
    assert one.exit_code == 0 and "removed 1 cache" in one.output
    assert len(cache.entries()) == 1
    runner.invoke(cli, ["cache", "clear"])
    assert cache.entries() == []


def test_a_rank_of_a_whole_launch_report_reads_its_own_rows_through_the_cache(cached, monkeypatch):
    """A RankProfile keeps one process of a file: the cached tables are filtered the same way, and the decoded
    views (which hold every process) are not used for it."""
    from nsys_analytics.data.profile_set import ProfileSet

    from .conftest import rank_files

    (whole,) = rank_files("ddp_whole")
    query = "SELECT count(*), sum(duration_ns), count(DISTINCT pid) FROM kernels"
    counts = {}
    for mode in ("direct", "cached", "cached again"):
        monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1" if mode == "direct" else "0")
        members = ProfileSet([str(whole)]).members
        assert len(members) == 2
        for member in members:
            with member.open() as p:
                counts[mode, member.pid] = p.sql(query).rows[0]
                assert (p._cache.pcache is None) == (mode == "direct")
    pids = {pid for _, pid in counts}
    assert len(pids) == 2
    for pid in pids:
        assert counts["direct", pid] == counts["cached", pid] == counts["cached again", pid]
        assert counts["direct", pid][2] == 1


def test_diff_summaries_read_the_stored_duration_counts_and_equal_the_exports(cached, monkeypatch):
    """diff / runs add read _kernel_durations and _range_durations from the cache (built by the first summary);
    the summaries equal those computed from the export directly, also for the ranks of a whole-launch report
    (whose profiles filter the raw tables and keep no decoded view)."""
    from nsys_analytics.capabilities.categories import load_rules
    from nsys_analytics.capabilities.diff.data import summarize, summarize_member
    from nsys_analytics.data.profile_set import ProfileSet

    from .conftest import rank_files

    rules = load_rules()
    (whole,) = rank_files("ddp_whole")
    summaries = {}
    for mode in ("direct", "cached", "cached again"):
        monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1" if mode == "direct" else "0")
        with nsys_analytics.open(TRAIN) as p:
            summaries[mode] = summarize(p, rules, attribution="none", window="all")
            if mode != "direct":
                assert {"_kernel_durations", "_range_durations"} <= set(p._cache.attached)
            summaries[mode, "steady"] = summarize(p, rules, attribution="process")  # diff's default window
        summaries[mode, "ranks"] = ProfileSet([str(whole)]).map(summarize_member, rules, "none", False, "all")
    assert {"_kernel_durations.parquet", "_range_durations.parquet"} <= parts(cached)
    assert len(summaries["direct"].kernels) > 50 and len(summaries["direct"].ranges) > 5
    assert summaries["direct"] == summaries["cached"] == summaries["cached again"]
    assert summaries["direct", "steady"] == summaries["cached", "steady"] == summaries["cached again", "steady"]
    assert summaries["direct", "steady"].steps == 3
    assert len(summaries["direct", "ranks"]) == 2
    assert summaries["direct", "ranks"] == summaries["cached", "ranks"] == summaries["cached again", "ranks"]


def no_cache_run(*args) -> CliRunner:
    """A CLI run with --no-cache, which then leaves the cache on again for this process."""
    result = CliRunner().invoke(cli, ["--no-cache", *map(str, args)])
    cache.folder._disabled = False
    return result


def test_a_first_kernel_copy_leaves_the_launch_columns_out_until_a_query_reads_one(cached, tmp_path):
    """`kernels` copies the kernel table without its launch-configuration columns (the core copy); a query that
    reads one (by-launch-config, `SELECT *`, the Perfetto export) gets the whole table copied, then read by every
    later query. Each answer equals the export's own."""
    def csv_of(*args, cache_on=True):
        result = CliRunner().invoke(cli, [str(a) for a in args]) if cache_on else no_cache_run(*args)
        assert result.exit_code == 0, result.output
        return result.stdout

    assert csv_of("kernels", TRAIN, "--format", "csv") == csv_of("kernels", TRAIN, "--format", "csv", cache_on=False)
    assert parts(cached) >= {"CUPTI_ACTIVITY_KIND_KERNEL.core.parquet"}
    assert "CUPTI_ACTIVITY_KIND_KERNEL.parquet" not in parts(cached)
    star = "SELECT * FROM compat.CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid"
    assert csv_of("sql", TRAIN, star, "--format", "csv") == csv_of("sql", TRAIN, star, "--format", "csv",
                                                                   cache_on=False)
    assert "CUPTI_ACTIVITY_KIND_KERNEL.parquet" in parts(cached)
    for args in (["kernels", TRAIN, "--by-launch-config", "--format", "csv"], ["kernels", TRAIN, "--format", "csv"]):
        assert csv_of(*args) == csv_of(*args, cache_on=False)
    with nsys_analytics.open(TRAIN) as p:
        p.kernel_summary()
        assert not p._cache.core  # the whole table, once it is there


def test_the_perfetto_export_reads_the_whole_kernel_table(cached, tmp_path):
    """The export streams its query on the connection itself: the launch columns it names are copied first."""
    CliRunner().invoke(cli, ["kernels", str(TRAIN)])  # a core copy
    out = {}
    for cache_on in (True, False):
        target = tmp_path / f"t{len(out)}.json"
        args = ["export", str(TRAIN), "--to", "perfetto", "-o", str(target)]
        result = CliRunner().invoke(cli, args) if cache_on else no_cache_run(*args)
        assert result.exit_code == 0, result.output
        out[cache_on] = sorted(line.rstrip(",") for line in target.read_text().splitlines())  # in no set order
    assert out[True] == out[False]
    assert "CUPTI_ACTIVITY_KIND_KERNEL.parquet" in parts(cached)


@pytest.mark.parametrize(("mode", "view"), [("thread", "_nvtx_kernel_stats"), ("process", "_nvtx_kernel_stats_process"),
                                          ("gpu", "_nvtx_kernel_stats_gpu")])
def test_nvtx_kernels_with_its_defaults_reads_the_stored_rows(cached, mode, view):
    """A warm `nvtx-kernels` (any --attribution, no other option) reads its stored rows (and the NVTX table its
    checks read), not the GPU operations; they are those the attribution gives without the stored view (the oracle
    tests check them against nsys in both modes)."""
    from nsys_analytics.capabilities.nvtx import report as nvtx

    with nsys_analytics.open(TRAIN) as p:
        first = nvtx.nvtx_kernel_summary(p, mode)
    (folder,) = cache.entries()
    built = {f: f.stat().st_mtime_ns for f in folder.iterdir()}
    assert f"{view}.parquet" in parts(cached)
    with nsys_analytics.open(TRAIN) as p:
        again = nvtx.nvtx_kernel_summary(p, mode)
        assert (again.rows, again.notes) == (first.rows, first.notes)
        assert set(p._cache.attached) <= {"NVTX_EVENTS", view}
        params = {"attribution": mode, "exclusive": False, "name_kind": "demangled", "graphs": False}
        stored = nvtx._run(p, "nvtx_kernel_summary", params).rows
        computed = p.run_file("nvtx", "nvtx_kernel_summary", params).rows
    assert all(f.stat().st_mtime_ns == t for f, t in built.items())
    assert len(stored) > 10 and stored == computed


def test_a_warm_nvtx_reads_the_stored_durations_and_not_the_export(cached):
    """A warm `nvtx` reads each range name's distinct durations (_range_durations) and the NVTX table its check reads,
    never the export: the names are in the stored rows. Its counted median and variance equal median() and the exact
    variance over every range instance, computed here from the ranges themselves."""
    from nsys_analytics.capabilities.nvtx import report as nvtx

    every_range = """
        SELECT name, style, sum(duration_ns), count(*), median(duration_ns), min(duration_ns), max(duration_ns),
               exact_variance(duration_ns)
        FROM _nvtx_ranges GROUP BY name, style ORDER BY name, style"""
    counted = "SELECT range, style, total_time_ns, instances, med_ns, min_ns, max_ns, stddev_ns ^ 2 FROM ({q})"
    with nsys_analytics.open(TRAIN) as p:
        first = nvtx.nvtx_summary(p)
    assert "_range_durations.parquet" in parts(cached)
    with nsys_analytics.open(TRAIN) as p:
        again = nvtx.nvtx_summary(p)
        assert (again.rows, again.notes) == (first.rows, first.notes)
        assert set(p._cache.attached) <= {"NVTX_EVENTS", "_range_durations"}
        assert not p._raw_attached
        ours = sorted(p.sql(counted.format(q=sql_files.read("nvtx", "nvtx_range_summary").text)).rows)
        assert not p._raw_attached
        reference = p.sql(every_range).rows  # from every range instance (this reads the export's strings)
    assert len(reference) > 3 and len(ours) == len(reference)
    assert any(row[3] % 2 == 0 for row in reference)  # an even count: the median interpolates
    for a, b in zip(ours, reference):
        assert tuple(a[:7]) == tuple(b[:7])
        assert a[7] == pytest.approx(b[7] or 0, rel=1e-12)


@pytest.mark.parametrize(("mode", "view"), [("thread", "_nvtx_kernel_stats"), ("process", "_nvtx_kernel_stats_process")])
def test_a_first_nvtx_kernels_joins_inline_and_copies_no_memory_operations(cached, mode, view):
    """From an empty cache, the rows of `nvtx-kernels` are computed without storing the join of every operation to
    its launch (_range_ops), without copying the memcpy/memset tables its filters never read nor the API call table
    its join reads once; once _range_ops is stored (by nvtx-gpu, which copies the calls), a rebuild reads it. Both
    equal the rows read from the export itself."""
    from nsys_analytics.capabilities.nvtx import report as nvtx

    args = ["nvtx-kernels", str(TRAIN), "--attribution", mode, "--format", "csv"]
    direct = no_cache_run(*args)
    assert direct.exit_code == 0, direct.output
    assert direct_kernel_count(TRAIN) and "memcpy" in sqlite_tables(TRAIN) and "memset" in sqlite_tables(TRAIN)
    first = CliRunner().invoke(cli, args)
    assert first.stdout == direct.stdout and len(direct.stdout.splitlines()) > 10
    assert f"{view}.parquet" in parts(cached)
    assert not parts(cached) & {"_range_ops.parquet", "CUPTI_ACTIVITY_KIND_MEMCPY.parquet",
                                "CUPTI_ACTIVITY_KIND_MEMSET.parquet", "CUPTI_ACTIVITY_KIND_RUNTIME.parquet"}
    with nsys_analytics.open(TRAIN) as p:
        nvtx._run(p, "nvtx_gpu_projection", {"attribution": "thread", "exclusive": False, "graphs": False})
    assert {"_range_ops.parquet", "CUPTI_ACTIVITY_KIND_RUNTIME.parquet"} <= parts(cached)
    (folder,) = cache.entries()
    (folder / f"{view}.parquet").unlink()
    again = CliRunner().invoke(cli, args)
    assert again.stdout == direct.stdout


def test_a_first_nvtx_kernels_that_runs_out_of_memory_stores_the_join_first(cached, monkeypatch):
    """At 20 M kernels, joining and grouping in one query can exceed DuckDB's memory: the build is then made again
    from the stored join (_range_ops), and the rows are still the export's."""
    import duckdb

    from nsys_analytics.data.cache import build

    args = ["nvtx-kernels", str(TRAIN), "--format", "csv"]
    direct = no_cache_run(*args)
    real = build.build_decoded
    inline_tries = []

    def out_of_memory_inline(view, inputs, target, decoded=None, from_export=None, threads=None, pool=None):
        if view == "_nvtx_kernel_stats" and "_range_ops" not in (decoded or {}):
            inline_tries.append(view)
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate (test)")
        return real(view, inputs, target, decoded, from_export, threads, pool)

    monkeypatch.setattr(build, "build_decoded", out_of_memory_inline)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert inline_tries == ["_nvtx_kernel_stats"] and "note:" not in result.stderr
    assert result.stdout == direct.stdout
    assert {"_range_ops.parquet", "_nvtx_kernel_stats.parquet"} <= parts(cached)


@pytest.mark.parametrize(("args", "view", "tries"), [
    (["kernels"], "_kernel_name_stats", [None, 1]),
    (["nvtx-kernels", "--attribution", "gpu"], "_nvtx_kernel_stats_gpu", [2, 1]),  # layout.THREADS: two at most
])
def test_a_view_out_of_memory_on_every_core_is_built_on_one_thread(cached, monkeypatch, args, view, tries):
    """Each DuckDB thread holds its own hash tables: a view whose groupings exceed the memory limit on two threads
    (nvtx_kernel_groups at 50 M kernels with --attribution gpu) is built once more on one, and the rows are still
    the export's."""
    import duckdb

    from nsys_analytics.data.cache import build

    args = [args[0], str(TRAIN), *args[1:], "--format", "csv"]
    direct = no_cache_run(*args)
    real = build.build_decoded
    seen = []

    def out_of_memory_on_every_core(name, *rest, threads=None, **kwargs):
        if name == view:
            seen.append(threads)
            if threads != 1:
                raise duckdb.OutOfMemoryException("Out of Memory Error: failed to pin block of size 256.0 KiB")
        return real(name, *rest, threads=threads, **kwargs)

    monkeypatch.setattr(build, "build_decoded", out_of_memory_on_every_core)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert seen == tries and "note:" not in result.stderr
    assert result.stdout == direct.stdout
    assert f"{view}.parquet" in parts(cached)


def test_a_view_out_of_memory_on_one_thread_is_not_tried_again(cached, monkeypatch):
    """A view out of memory on one thread has nothing leaner to try: it is read without the cache after that try,
    with the note."""
    import duckdb

    from nsys_analytics.data.cache import build

    args = ["nvtx-kernels", str(TRAIN), "--attribution", "gpu", "--format", "csv"]
    direct = no_cache_run(*args)
    real = build.build_decoded
    seen = []

    def out_of_memory(name, *rest, threads=None, **kwargs):
        if name == "_nvtx_kernel_stats_gpu":
            seen.append(threads)
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to pin block of size 256.0 KiB")
        return real(name, *rest, threads=threads, **kwargs)

    monkeypatch.setattr(build, "build_decoded", out_of_memory)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert seen == [2, 1] and "cannot cache" in result.stderr
    assert result.stdout == direct.stdout


def test_a_first_diagnose_builds_what_its_rules_read_before_its_pass(cached, monkeypatch):
    """The stored view diagnose's rules read (_range_ops: launch_bound's and gpu_starved's launching calls) is built
    before its pass holds its own arrays and tables (at 10 M kernels, building _range_ops after it took the process
    to 1.7 GiB), from the core kernel copy, which holds the context ids its rules name (the whole table, copied for
    them before, took 5.8 of 20.9 s at 10 M kernels); the stored cuda_api, which no rule reads, is not built. The
    findings equal the export's."""
    from nsys_analytics.data.cache import build
    from nsys_analytics.capabilities.diagnose import report

    args = ["diagnose", str(TRAIN), "--format", "json"]
    direct = no_cache_run(*args)
    order = []
    real_build, real_sweep = build.build_decoded, report.sweep

    def logged_build(view, *a, **k):
        order.append(view)
        return real_build(view, *a, **k)

    def logged_sweep(*a, **k):
        order.append("the pass")
        return real_sweep(*a, **k)

    monkeypatch.setattr(build, "build_decoded", logged_build)
    monkeypatch.setattr(report, "sweep", logged_sweep)
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert first.stdout == direct.stdout
    assert order.index("_range_ops") < order.index("the pass") and "cuda_api" not in order
    assert {"CUPTI_ACTIVITY_KIND_KERNEL.core.parquet", "_range_ops.parquet"} <= parts(cached)
    assert "cuda_api.parquet" not in parts(cached)
    assert "CUPTI_ACTIVITY_KIND_KERNEL.parquet" not in parts(cached)


def sqlite_tables(path: Path) -> str:
    """The names of the export's tables that hold rows, lower case, in one string."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return " ".join(n.lower() for n in names if con.execute(f'SELECT 1 FROM "{n}" LIMIT 1').fetchone())
    finally:
        con.close()


@pytest.mark.parametrize("name", ["nvtx_gpu_projection", "nvtx_gpu_projection_summary"])
def test_nvtx_gpu_with_its_defaults_reads_the_stored_projection(cached, name):
    from nsys_analytics.capabilities.nvtx import report as nvtx

    params = {"attribution": "thread", "exclusive": False, "graphs": False}
    with nsys_analytics.open(TRAIN) as p:
        stored = nvtx._run(p, name, params).rows
        assert "_nvtx_range_projection" in p._cache.attached
    with nsys_analytics.open(TRAIN) as p:
        assert nvtx._run(p, name, params).rows == stored
        assert set(p._cache.attached) == {"_nvtx_range_projection"}
        computed = p.run_file("nvtx", name, params).rows
    assert len(stored) > 10 and stored == computed


def test_a_stored_view_that_cannot_be_built_is_computed_from_what_it_reads(cached, monkeypatch, capsys):
    """A decoded view whose build fails (DuckDB out of memory, a full disk) is computed by the query from the
    tables and views it reads, as without the cache: the same rows, one note, no error."""
    import duckdb

    from nsys_analytics.data.cache import build
    from nsys_analytics.capabilities.nvtx import report as nvtx

    monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1")
    with nsys_analytics.open(TRAIN) as p:
        expected = nvtx.nvtx_kernel_summary(p).rows
    monkeypatch.delenv("NSYS_ANALYTICS_NO_CACHE")
    real = build.build_decoded

    def failing(view, *args, **kwargs):
        if view == "_nvtx_kernel_stats":
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 64.0 MiB")
        return real(view, *args, **kwargs)

    monkeypatch.setattr(build, "build_decoded", failing)
    with nsys_analytics.open(TRAIN) as p:
        assert nvtx.nvtx_kernel_summary(p).rows == expected
    assert "cannot cache" in capsys.readouterr().err
    assert "_nvtx_kernel_stats.parquet" not in parts(cached)


def test_a_core_copy_removed_by_another_process_is_read_as_the_whole_table(cached):
    """Another process copies the whole kernel table and removes the core copy this one reads: its next query
    finds the file gone, reads the whole table instead, and counts what the export holds."""
    query = 'SELECT count(*) FROM compat."CUPTI_ACTIVITY_KIND_KERNEL"'
    with nsys_analytics.open(TRAIN) as p:
        assert p.sql(query).rows[0][0] == direct_kernel_count(TRAIN)
        assert p._cache.core
        with nsys_analytics.open(TRAIN) as other:
            assert other._cache.pcache.ensure(["CUPTI_ACTIVITY_KIND_KERNEL"], whole_kernels=True)
        assert "CUPTI_ACTIVITY_KIND_KERNEL.core.parquet" not in parts(cached)
        assert p.sql(query).rows[0][0] == direct_kernel_count(TRAIN)
        assert not p._cache.core


def test_decoded_parts_are_stored_in_time_order(cached, monkeypatch, tmp_path):
    """A decoded part with a start time is written ordered by it (parts.write): its timestamps then take a few bits
    each in Parquet's delta encoding; the rows are those of the view computed without the cache."""
    import duckdb

    from nsys_analytics.data.cache import parts

    con = duckdb.connect()
    shuffled = "SELECT i * 1000 AS start_ns, i AS op FROM range(100000) t(i) ORDER BY hash(i)"
    parts.write(con, shuffled, tmp_path / "a.parquet", {}, in_time_order=True)
    parts.write(con, shuffled, tmp_path / "b.parquet", {})
    starts = {n: [s for (s,) in con.execute(f"SELECT start_ns FROM read_parquet('{tmp_path / n}')").fetchall()]
              for n in ("a.parquet", "b.parquet")}
    assert starts["a.parquet"] == sorted(starts["b.parquet"]) != starts["b.parquet"]
    assert (tmp_path / "a.parquet").stat().st_size < (tmp_path / "b.parquet").stat().st_size / 2

    ordered = []
    monkeypatch.setattr(parts, "write", lambda *a, **k: (ordered.append((a[2].name, k.get("in_time_order"))),
                                                          parts_write(*a, **k))[1])
    query = "SELECT count(*), sum(start_ns), sum(duration_ns) FROM _range_ops"
    with nsys_analytics.open(TRAIN) as p:
        counted = p.sql(query).rows
    assert any(name.startswith("._range_ops.parquet") and flag for name, flag in ordered)
    monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1")
    with nsys_analytics.open(TRAIN) as p:
        assert p.sql(query).rows == counted


@pytest.mark.parametrize("user_limit", [None, "1GB"])
def test_a_view_built_in_its_own_pool_is_built_again_in_the_default_one_when_that_runs_out(cached, monkeypatch,
                                                                                          user_limit):
    """layout.POOL gives the gpu attribution's stored rows a pool of their own (1.5 GB; here 2 MB, too small for
    them): the build runs out of memory in it, and the view is built again in the default pool, with the rows the
    attribution gives without the stored view. NSYS_ANALYTICS_MEMORY, when set, wins over the view's pool."""
    from nsys_analytics.capabilities.nvtx import report as nvtx
    from nsys_analytics.data.cache import build, layout

    if user_limit:
        monkeypatch.setenv("NSYS_ANALYTICS_MEMORY", user_limit)
    monkeypatch.setitem(layout.POOL, "_nvtx_kernel_stats_gpu", "2MB")
    pools = []
    real = build.build_decoded

    def recorded(view, *args, **kwargs):
        if view == "_nvtx_kernel_stats_gpu":
            pools.append(kwargs.get("pool"))
        return real(view, *args, **kwargs)

    monkeypatch.setattr(build, "build_decoded", recorded)
    params = {"attribution": "gpu", "exclusive": False, "name_kind": "demangled", "graphs": False}
    with nsys_analytics.open(TRAIN) as p:
        stored = nvtx._run(p, "nvtx_kernel_summary", params).rows
        computed = p.run_file("nvtx", "nvtx_kernel_summary", params).rows
    assert "_nvtx_kernel_stats_gpu.parquet" in parts(cached)
    assert pools == (["2MB"] if user_limit else ["2MB", None])
    assert len(stored) > 10 and stored == computed
