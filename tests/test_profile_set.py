"""ProfileSet: inputs, rank ids, bad input, exact merges (property test on random splits), and the engines
(sequential == local pool == a real Dask cluster on localhost)."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from nsys_analytics import open as open_profile
from nsys_analytics.engine import LocalPool, Sequential
from nsys_analytics.errors import ProfileError
from nsys_analytics.kernels.report import kernel_summary
from nsys_analytics.profile_set import ProfileSet, expand_inputs
from nsys_analytics.ranks.sets import kernel_summary_set

from .conftest import PROFILES, ROOT

TRAIN = PROFILES / "gpt_train.sqlite"
FORWARD = PROFILES / "gpt_forward.sqlite"


def _rows_by_name(result):
    return {row[-1]: row for row in result.rows}


def _split_copies(tmp_path, source, parts: int, seed: int, table="CUPTI_ACTIVITY_KIND_KERNEL", where="true"):
    """`parts` copies of `source` in tmp_path whose rows of `table` (those matching `where`) partition the
    original's: each row is kept in exactly one copy, chosen at random."""
    con = sqlite3.connect(source)
    ids = [r for (r,) in con.execute(f"SELECT rowid FROM {table} WHERE {where}")]
    con.close()
    rng = random.Random(seed)
    owner = {i: rng.randrange(parts) for i in ids}
    paths = []
    for part in range(parts):
        p = tmp_path / f"split_{seed}.{part}.sqlite"
        shutil.copy(source, p)
        con = sqlite3.connect(p)
        drop = [(i,) for i, o in owner.items() if o != part]
        con.executemany(f"DELETE FROM {table} WHERE rowid = ?", drop)
        con.commit()
        con.close()
        paths.append(p)
    return paths


@pytest.mark.parametrize("seed,parts", [(1, 2), (2, 3), (3, 5)])
def test_combined_equals_the_whole_on_random_splits(tmp_path, seed, parts):
    """A profile's kernels dealt at random into k files: the combined table of the k files equals the single-file
    report of the original (itself checked against nsys stats), every cell; each rank equals its own file."""
    paths = _split_copies(tmp_path, TRAIN, parts, seed)
    pset = ProfileSet([str(p) for p in paths], engine=Sequential())
    assert pset.rank_source == "file name" and pset.ranks == list(range(parts))
    result = kernel_summary_set(pset)
    with open_profile(TRAIN) as p:
        whole = kernel_summary(p)
    assert _rows_by_name(result.combined) == _rows_by_name(whole)
    for rank, path in enumerate(paths):
        with open_profile(path) as p:
            own = _rows_by_name(kernel_summary(p))
        mine = {row[-1]: row[1:] for row in result.ranks.rows if row[0] == rank}
        assert mine == own


def test_nvtx_combined_equals_the_whole_on_a_random_split(tmp_path):
    """The same for nvtx_sum: NVTX ranges (not the domain and category definitions) dealt into 3 files."""
    from nsys_analytics.nvtx.report import nvtx_summary
    from nsys_analytics.ranks.nvtx import nvtx_sum_set

    paths = _split_copies(tmp_path, TRAIN, 3, 7, table="NVTX_EVENTS", where="eventType IN (59, 60)")
    result = nvtx_sum_set(ProfileSet([str(p) for p in paths], engine=Sequential()))
    with open_profile(TRAIN) as p:
        whole = nvtx_summary(p)
    assert result.combined.rows == whole.rows


def test_engines_give_identical_results():
    """Sequential, the local process pool and a real Dask cluster (scheduler + 2 worker processes on
    127.0.0.1) return the same frames."""
    distributed = pytest.importorskip("distributed")
    inputs = [str(TRAIN), str(FORWARD), str(PROFILES / "gpt_sdpa_train.sqlite")]
    seq = kernel_summary_set(ProfileSet(inputs, engine=Sequential()))
    pool = kernel_summary_set(ProfileSet(inputs, engine=LocalPool(2)))
    from nsys_analytics.engine import DaskEngine

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        engine = DaskEngine(cluster.scheduler_address)
        try:
            dask = kernel_summary_set(ProfileSet(inputs, engine=engine))
            workers = engine.client.scheduler_info()["workers"]
            assert len(workers) == 2
        finally:
            engine.close()
    for other in (pool, dask):
        assert other.combined.rows == seq.combined.rows
        assert other.ranks.rows == seq.ranks.rows


def test_folder_mixing_nsys_ncu_and_other_files(tmp_path):
    (tmp_path / "report.0.sqlite").symlink_to(TRAIN)
    (tmp_path / "report.1.sqlite").symlink_to(FORWARD)
    (tmp_path / "report.1.nsys-rep").write_bytes(b"not read: its export is beside it")
    (tmp_path / "kernels.ncu-rep").write_bytes(b"x")
    (tmp_path / "notes.txt").write_text("x")
    found = expand_inputs([str(tmp_path)])
    assert [p.name for p in found.files] == ["report.0.sqlite", "report.1.sqlite"]
    why = "\n".join(found.ignored)
    assert "kernels.ncu-rep (an Nsight Compute report" in why
    assert "notes.txt (not an nsys" in why
    assert "report.1.nsys-rep (its export report.1.sqlite is read instead)" in why


def test_rank_ids_from_file_names_else_input_order(tmp_path):
    (tmp_path / "train_rank3.sqlite").symlink_to(TRAIN)
    (tmp_path / "train_rank1.sqlite").symlink_to(FORWARD)
    pset = ProfileSet([str(tmp_path / "train_rank3.sqlite"), str(tmp_path / "train_rank1.sqlite")],
                      engine=Sequential())
    assert [(m.rank, os.path.basename(m.path)) for m in pset.members] == [(1, "train_rank1.sqlite"),
                                                                           (3, "train_rank3.sqlite")]
    assert pset.rank_source == "file name"
    plain = ProfileSet([str(FORWARD), str(TRAIN)], engine=Sequential())  # names tell nothing apart
    assert plain.rank_source == "input order"
    assert [os.path.basename(m.path) for m in plain.members] == ["gpt_forward.sqlite", "gpt_train.sqlite"]


def test_the_same_file_twice_is_read_once(tmp_path):
    (tmp_path / "again.sqlite").symlink_to(TRAIN)
    pset = ProfileSet([str(TRAIN), str(tmp_path / "again.sqlite"), str(FORWARD)], engine=Sequential())
    assert len(pset) == 2
    assert any("given twice" in x or "the same file" in x for x in pset.ignored)


def test_one_corrupt_file_among_many_is_named_and_skip_bad_goes_on(tmp_path):
    bad = tmp_path / "report.2.sqlite"
    bad.write_bytes(TRAIN.read_bytes()[:50_000])  # truncated
    (tmp_path / "report.0.sqlite").symlink_to(TRAIN)
    (tmp_path / "report.1.sqlite").symlink_to(FORWARD)
    with pytest.raises(ProfileError) as e:
        ProfileSet([str(tmp_path)], engine=Sequential())
    assert "report.2.sqlite" in str(e.value) and "--skip-bad" in str(e.value)
    pset = ProfileSet([str(tmp_path)], engine=Sequential(), skip_bad=True)
    assert pset.ranks == [0, 1]
    assert any("report.2.sqlite" in line and "--skip-bad" in line for line in pset.messages())


def _cli(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "nsys_analytics", *args], check=False, capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, env={**os.environ, **(env or {})})


def test_cli_kernels_over_several_profiles_has_a_rank_column():
    out = _cli("kernels", str(TRAIN), str(FORWARD), "--format", "csv", "--jobs", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Rank,Time (%),Total Time (ns),Instances")
    ranks = {line.split(",")[0] for line in lines[1:]}
    assert ranks == {"0", "1", "all"}


def test_unreachable_scheduler_is_one_line_exit_1_and_fast():
    start = time.monotonic()
    out = _cli("kernels", str(TRAIN), str(FORWARD), "--scheduler", "tcp://127.0.0.1:9")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in out.stderr
    assert time.monotonic() - start < 20


def test_python_api_profile_set():
    import nsys_analytics

    ps = nsys_analytics.open_set([str(TRAIN), str(FORWARD)], jobs=1)
    top = ps.kernel_summary()
    assert set(top["rank"]) == {0, 1, "all"}
    counts = ps.df("SELECT count(*) AS n FROM kernels")
    with open_profile(TRAIN) as p, open_profile(FORWARD) as q:
        expected = [p.df("SELECT count(*) AS n FROM kernels")["n"][0], q.df("SELECT count(*) AS n FROM kernels")["n"][0]]
    assert list(counts["n"]) == expected and list(counts["rank"]) == [0, 1]
    assert int(top[top["rank"] == "all"]["instances"].sum()) == sum(expected)


@pytest.mark.parametrize("command", ["nvtx", "nvtx-gpu", "classify", "info"])
def test_every_report_command_takes_several_profiles(command):
    """Commands without an exact merge stack each rank's own table (equal to its single-file output) with a
    rank column."""
    out = _cli(command, str(TRAIN), str(FORWARD), "--format", "csv", "--jobs", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Rank,")
    for rank, path in enumerate((TRAIN, FORWARD)):
        single = _cli(command, str(path), "--format", "csv").stdout.splitlines()
        mine = [line.split(",", 1)[1] for line in lines[1:] if line.split(",", 1)[0] == str(rank)]
        assert mine == single[1:]


def test_diagnose_over_several_profiles_gives_one_section_per_rank():
    out = _cli("diagnose", str(TRAIN), str(FORWARD), "--jobs", "1")
    assert out.returncode == 0, out.stderr
    assert "== rank 0 (gpt_train.sqlite; rank id from the input order) ==" in out.stdout
    assert "== rank 1 (gpt_forward.sqlite" in out.stdout


def _copy_with(tmp_path, name, source, rank=None, version=None):
    """A copy of `source` in tmp_path whose recorded environment says RANK=rank and/or whose export version is
    `version`."""
    p = tmp_path / name
    shutil.copy(source, p)
    con = sqlite3.connect(p)
    if rank is not None:
        con.execute("INSERT INTO META_DATA_CAPTURE (name, value) VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', ?)",
                    (f'RANK="{rank}"',))
    if version is not None:
        con.execute("UPDATE META_DATA_EXPORT SET value = ? WHERE name = 'EXPORT_PRODUCT_VERSION'", (version,))
    con.commit()
    con.close()
    return p


def test_rank_ids_from_the_environment_before_file_names(tmp_path):
    a = _copy_with(tmp_path, "run_0.sqlite", TRAIN, rank=1)
    b = _copy_with(tmp_path, "run_1.sqlite", FORWARD, rank=0)
    pset = ProfileSet([str(a), str(b)], engine=Sequential())
    assert pset.rank_source == "environment"
    assert [(m.rank, os.path.basename(m.path)) for m in pset.members] == [(0, "run_1.sqlite"), (1, "run_0.sqlite")]


def test_duplicated_ranks_fall_back_and_say_so(tmp_path):
    a = _copy_with(tmp_path, "run_0.sqlite", TRAIN, rank=0)
    b = _copy_with(tmp_path, "run_1.sqlite", FORWARD, rank=0)
    pset = ProfileSet([str(a), str(b)], engine=Sequential())
    assert pset.rank_source == "file name" and pset.ranks == [0, 1]
    assert any("rank ids from the environment repeat (0)" in n for n in pset.notes)


def test_ranks_of_different_nsys_versions_are_read_and_named(tmp_path):
    a = _copy_with(tmp_path, "r.0.sqlite", TRAIN, version="2024.6.2.225")
    pset = ProfileSet([str(a), str(FORWARD)], engine=Sequential())
    assert any("different nsys versions (2024.6.2.225, 2025.3.2.0)" in n for n in pset.notes)
    assert len(kernel_summary_set(pset).combined.rows) > 0


@pytest.mark.shared
def test_one_report_of_two_processes_split_into_ranks_merges_back_to_nsys():
    """multiproc.sqlite (two processes sharing a GPU) split by process: two ranks, and the combined table is
    byte for byte the `nsys stats cuda_gpu_kern_sum` CSV of the whole file."""
    from .conftest import SHARED

    path = SHARED / "h200-nsys2025.3" / "multiproc.sqlite"
    pset = ProfileSet([str(path)], engine=Sequential())
    assert pset.rank_source == "process order" and len({m.pid for m in pset.members}) == 2
    out = _cli("kernels", str(path), "--by-rank", "--combined", "--format", "csv", "--jobs", "1")
    oracle = SHARED / "h200-nsys2025.3" / "oracle" / "multiproc" / "multiproc_cuda_gpu_kern_sum.csv"
    assert out.stdout == oracle.read_text()


def test_ranks_on_two_hosts_are_aligned_by_session_start_and_called_approximate(tmp_path):
    """Same file as two hosts, the second one's session starting 5 ms later on the wall clock: its events are
    shifted by +5 ms onto the first host's clock, and the alignment is said to be approximate. One host: no
    shift."""
    from nsys_analytics.ranks import data

    a = tmp_path / "h.0.sqlite"
    b = tmp_path / "h.1.sqlite"
    shutil.copy(TRAIN, a)
    shutil.copy(TRAIN, b)
    con = sqlite3.connect(b)
    con.execute("UPDATE TARGET_INFO_SYSTEM_ENV SET value = 'other-host' WHERE name = 'Hostname'")
    con.execute("UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + 5000000")
    con.commit()
    con.close()
    pset = ProfileSet([str(a), str(b)], engine=Sequential())
    assert [m.clock_offset_ns for m in pset.members] == [0, 5_000_000]
    assert any("approximate" in n and "2 hosts" in n for n in pset.notes)
    s0, s1 = (data.step_timeline(m)["steps"] for m in pset.members)
    assert list(s1["start_ns"] - s0["start_ns"]) == [5_000_000] * len(s0)
    same_host = ProfileSet([str(a), str(FORWARD)], engine=Sequential())
    assert [m.clock_offset_ns for m in same_host.members] == [0, 0] and not same_host.notes


def test_output_onto_an_input_profile_is_refused_and_the_profile_untouched(tmp_path):
    a, b = tmp_path / "r.0.sqlite", tmp_path / "r.1.sqlite"
    shutil.copy(TRAIN, a)
    shutil.copy(FORWARD, b)
    before = b.read_bytes()
    for command in ("kernels", "ranks", "nccl"):
        out = _cli(command, str(a), str(b), "--jobs", "1", "--format", "csv", "-o", str(b))
        assert out.returncode == 2 and "that is an input profile" in out.stderr, (command, out.stderr)
    assert b.read_bytes() == before
    ok = _cli("kernels", str(a), str(b), "--jobs", "1", "--format", "csv", "-o", str(tmp_path / "k.csv"))
    assert ok.returncode == 0 and (tmp_path / "k.csv").read_text().startswith("Rank,")
