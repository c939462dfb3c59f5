"""The Python ProfileSet (nsys_analytics.open_set): every report method of the single-profile API, over many
ranks. Each method's combined table equals the single-file method on the original of random splits (the merge
is exact) and its per-rank rows equal each file's own single-file table (kernel_summary, nvtx_summary and
nvtx_gpu_summary as the set prints them, like `nsys recipe`: test_profile_set.recipe_printed); and each table
equals, cell for cell, the CSV the CLI writes for the same command over the same files (the DDP fixtures)."""

from __future__ import annotations

import csv
import io
import math
import random
import sqlite3

import pandas as pd
import pytest

import nsys_analytics
from nsys_analytics.core.errors import UsageError

from .conftest import PROFILES, RANKS, rank_files
from .test_profile_set import _cli, _copies_by_owner, _keep_owned, _owner_by_top_range, _split_copies, recipe_printed

TRAIN = PROFILES / "gpt_train.sqlite"
HAVE_DDP = (RANKS / "ddp_straggler").is_dir()
STRAGGLER = rank_files("ddp_straggler") if HAVE_DDP else ()

# API method -> (CLI command, its options)
METHODS = {
    "kernel_summary": ("kernels", ()),
    "kernel_categories": ("classify", ()),
    "nvtx_summary": ("nvtx", ()),
    "nvtx_gpu_summary": ("nvtx-gpu", ()),
    "nvtx_kernel_summary": ("nvtx-kernels", ()),
    "nccl_summary": ("nccl", ()),
}


def _rows(df: pd.DataFrame) -> list[tuple]:
    return [tuple(r) for r in df.itertuples(index=False, name=None)]


def _same(a, b) -> bool:
    """Cells equal; floats to 1e-9 relative (Time (%) is a share of a sum added in another order)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def _assert_frames_equal(got: pd.DataFrame, want: pd.DataFrame):
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want) and len(want) > 0
    for g, w in zip(_rows(got), _rows(want)):
        assert all(_same(x, y) for x, y in zip(g, w)), [(c, x, y) for c, x, y in zip(got.columns, g, w) if not _same(x, y)]


# The methods whose set tables print their statistics as `nsys recipe` (the others as the single-file method).
RECIPE_PRINTED = ("kernel_summary", "nvtx_summary", "nvtx_gpu_summary")


def _single(profile, method: str, **kwargs) -> pd.DataFrame:
    """The single-file method's frame, as the set prints it."""
    frame = getattr(profile, method)(**kwargs)
    if method not in RECIPE_PRINTED:
        return frame
    return pd.DataFrame(recipe_printed(list(frame.columns), _rows(frame)), columns=frame.columns)


def _check_split(paths, method: str, whole_source=TRAIN, drop=(), **kwargs):
    """ProfileSet over `paths`: combined = the single-file method on `whole_source`; each rank = its file's."""
    ps = nsys_analytics.open_set([str(p) for p in paths], jobs=1)
    assert ps.ranks == list(range(len(paths)))
    with nsys_analytics.open(whole_source) as p:
        whole = _single(p, method, **kwargs).drop(columns=list(drop))
    _assert_frames_equal(getattr(ps, method)(table="combined", **kwargs), whole)
    per_rank = getattr(ps, method)(table="ranks", **kwargs)
    for rank, path in enumerate(paths):
        with nsys_analytics.open(path) as p:
            own = _single(p, method, **kwargs)
        _assert_frames_equal(per_rank[per_rank["rank"] == rank].drop(columns="rank").reset_index(drop=True), own)
    return ps


def test_the_set_offers_every_report_method_of_the_single_profile_api():
    single = {m for m in vars(nsys_analytics.Profile) if not m.startswith("_")} - {"attach"}
    assert single <= {m for m in dir(nsys_analytics.ProfileSet) if not m.startswith("_")}
    assert single == (set(METHODS) - {"nccl_summary"}) | {"breakdown", "modules"}  # nccl: a set-only table


def test_kernels_and_classify_on_a_random_split(tmp_path):
    """Kernels dealt at random into 3 files: kernel_summary (also by launch configuration) and kernel_categories."""
    paths = _split_copies(tmp_path, TRAIN, 3, 21)
    _check_split(paths, "kernel_summary")
    _check_split(paths, "kernel_summary", by_launch=True, name_kind="short")
    _check_split(paths, "kernel_categories")


def test_nvtx_and_nvtx_gpu_on_a_random_split(tmp_path):
    """NVTX ranges dealt at random into 2 files, each outermost range with the ranges nested in it (every file
    keeps every kernel, so each range projects, nests and counts children as in the original): nvtx_summary and
    nvtx_gpu_summary."""
    paths = _split_ranges_by_top(tmp_path, TRAIN, 2, 22)
    _check_split(paths, "nvtx_summary")
    _check_split(paths, "nvtx_gpu_summary")


def _split_ranges_by_top(tmp_path, source, parts: int, seed: int):
    con = sqlite3.connect(source)
    ranges = con.execute("SELECT rowid, start, end, globalTid FROM NVTX_EVENTS WHERE eventType IN (59, 60) "
                         "AND end IS NOT NULL ORDER BY globalTid, start, end DESC").fetchall()
    con.close()
    rng = random.Random(seed)
    owner, top_end, top_part, top_tid = {}, -1, 0, None
    for rowid, start, end, tid in ranges:
        if tid != top_tid or start >= top_end:  # a new outermost range of this thread
            top_tid, top_end, top_part = tid, end, rng.randrange(parts)
        owner[rowid] = top_part
    assert len(set(owner.values())) == parts
    return _copies_by_owner(tmp_path, source, owner, parts, "ranges", table="NVTX_EVENTS")


def test_nvtx_kernels_on_a_random_split(tmp_path):
    """Kernels dealt into 2 files by outermost range instance: nvtx_kernel_summary (its combined table has no
    PID/TID: one row per range, style and kernel over every rank and thread)."""
    paths = _copies_by_owner(tmp_path, TRAIN, _owner_by_top_range(TRAIN, 2, 23), 2, "nk")
    _check_split(paths, "nvtx_kernel_summary", drop=("pid", "tid"))


@pytest.mark.skipif(not HAVE_DDP, reason="the DDP fixtures are absent")
def test_nccl_on_a_random_split(tmp_path):
    """A DDP rank's NCCL NVTX ranges and kernels dealt at random into 2 files: the combined nccl_summary equals
    the one-file set's (the single API has no NCCL table; one rank's set is its own file's)."""
    source = STRAGGLER[0]
    paths = _split_copies(tmp_path, source, 2, 24, table="NVTX_EVENTS", where="eventType IN (59, 60)")
    rng = random.Random(25)
    con = sqlite3.connect(source)
    kernels = [r for (r,) in con.execute("SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL")]
    con.close()
    _keep_owned(paths, {i: rng.randrange(2) for i in kernels}, "CUPTI_ACTIVITY_KIND_KERNEL")
    split = nsys_analytics.open_set([str(p) for p in paths], jobs=1).nccl_summary(table="combined")
    whole = nsys_analytics.open_set([str(source)], jobs=1).nccl_summary(table="combined")
    _assert_frames_equal(split, whole)
    assert whole["instances"].sum() > 10


def test_breakdown_stacks_each_ranks_own_table(tmp_path):
    paths = _split_copies(tmp_path, TRAIN, 2, 26)
    ps = nsys_analytics.open_set([str(p) for p in paths], jobs=1)
    for level in ("category", "group"):
        got = ps.breakdown(level=level, window="all")
        assert list(got.columns)[0] == "rank" and set(got["rank"]) == {0, 1}
        for rank, path in enumerate(paths):
            with nsys_analytics.open(path) as p:
                own = p.breakdown(level=level, window="all")
            _assert_frames_equal(got[got["rank"] == rank].drop(columns="rank").reset_index(drop=True), own)


def test_a_table_name_not_offered_is_refused():
    ps = nsys_analytics.open_set([str(TRAIN)], jobs=1)
    with pytest.raises(UsageError, match="choose one of all, combined, ranks"):
        ps.kernel_summary(table="both")


@pytest.mark.skipif(not HAVE_DDP, reason="the DDP fixtures are absent")
@pytest.mark.parametrize("method", sorted(METHODS))
def test_each_method_equals_the_cli_csv_of_the_ddp_ranks(method):
    """The API's frame and `nsys-analytics COMMAND rank0 rank1 --format csv`: the same rows in the same order,
    every cell (numbers as numbers, the combined rows with rank 'all')."""
    command, options = METHODS[method]
    out = _cli(command, *map(str, STRAGGLER), *options, "--format", "csv", "--jobs", "1")
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    header, body = rows[0], rows[1:]
    frame = getattr(nsys_analytics.open_set([str(p) for p in STRAGGLER], jobs=1), method)()
    assert header[0] == "Rank" and len(header) == len(frame.columns)
    assert len(body) == len(frame) and {"0", "1", "all"} <= {r[0] for r in body}
    for cells, values in zip(body, _rows(frame)):
        for text, value in zip(cells, values):
            if value is None or (isinstance(value, float) and math.isnan(value)):
                assert text == ""
            elif isinstance(value, float) and "." in text:  # the CSV prints the figure rounded (Time (%) to 0.1)
                assert abs(float(text) - value) <= 0.5 * 10 ** -len(text.split(".")[1]) + 1e-9, (cells, values)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                assert math.isclose(float(text), value, rel_tol=1e-12), (cells, values)
            else:
                assert text == str(value), (cells, values)


def test_a_set_names_a_wrong_table_or_limit():
    """ranks_table('bogus') was an AttributeError on the report; kernel_summary(limit=0) an empty frame."""
    ps = nsys_analytics.open_set([str(p) for p in rank_files("ddp_straggler")], jobs=1)
    with pytest.raises(UsageError, match="table 'bogus': choose one of steps, summary, phases, collectives"):
        ps.ranks_table("bogus")
    with pytest.raises(UsageError, match="limit=0"):
        ps.kernel_summary(limit=0)
