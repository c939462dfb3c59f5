"""ProfileSet: inputs, rank ids, bad input, exact merges (property test on random splits), and the engines
(sequential == local pool == a real Dask cluster on localhost).

The multi-rank tables of kernels, nccl, nvtx and nvtx-gpu print their statistics as `nsys recipe` does (numpy's
rounding, a blank Std for a single instance) where the single-file reports print as `nsys stats` does (half up,
0.0). To compare them, `recipe_printed` applies that one documented difference to the single-file side,
from the row's own exact Sum and Count, after checking the row against `nsys stats`' convention;
every other cell must be equal as printed.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from click.testing import CliRunner

from nsys_analytics import open as open_profile
from nsys_analytics.cli.main import cli
from nsys_analytics.data.engine import LocalPool, Sequential
from nsys_analytics.core.errors import ProfileError
from nsys_analytics.capabilities.kernels.report import kernel_summary
from nsys_analytics.data.profile_set import ProfileSet, expand_inputs
from nsys_analytics.capabilities.ranks.sets import kernel_summary_set

from .conftest import PROFILES, ROOT

TRAIN = PROFILES / "gpt_train.sqlite"
FORWARD = PROFILES / "gpt_forward.sqlite"


def _rows_by_name(result):
    return {row[-1]: row for row in result.rows}


# (sum, count, mean, median, std) of the single-file summaries whose multi-rank tables print as the recipes: by
# column (kernels, nvtx; nvtx-gpu) and by CSV header.
RECIPE_STATS = (("total_time_ns", "instances", "avg_ns", "med_ns", "stddev_ns"),
                ("total_proj_time_ns", "range_instances", "proj_avg_ns", "proj_med_ns", "proj_stddev_ns"),
                ("Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "StdDev (ns)"),
                ("Total Proj Time (ns)", "Range Instances", "Proj Avg (ns)", "Proj Med (ns)", "Proj StdDev (ns)"))


def stats_round(x: float) -> float:
    """`nsys stats`' rounding to one decimal (SQLite's round() in nsys): half away from zero on the double's exact
    decimal value. Written out with Decimal: the SQLite of Python's sqlite3 (3.40) rounds a double just below a half
    up (1075353 / 60 = 17922.5499999999992... -> 17922.6, where nsys prints 17922.5)."""
    return float(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def recipe_printed(columns, rows) -> list[tuple]:
    """Rows of a single-file summary, printed as `nsys stats`, as a multi-rank table prints them (as `nsys
    recipe`): the mean, which must be nsys stats' rounding of the row's exact Sum / Count, becomes numpy's round of
    it; a single instance's Std, which must be 0.0, becomes blank. The median is a whole or half number, which both
    roundings keep; the rest is unchanged."""
    total, count, mean, median, std = (list(columns).index(c)
                                       for c in next(s for s in RECIPE_STATS if set(s) <= set(columns)))
    out = []
    for row in rows:
        row = list(row)
        exact = row[total] / row[count]
        assert row[mean] == stats_round(exact), (row, columns[mean])
        row[mean] = float(np.round(exact, 1))
        assert float(row[median] * 2).is_integer(), (row, columns[median])
        if row[count] == 1:
            assert row[std] == 0.0, (row, columns[std])
            row[std] = None
        out.append(tuple(row))
    return out


def recipe_printed_csv(text: str) -> list[list[str]]:
    """`recipe_printed` on a single-file CSV: its rows of cells (as the CSV prints them), header first."""
    header, *rows = csv.reader(io.StringIO(text))
    typed = [[_number(v) for v in row] for row in rows]
    printed = recipe_printed(header, typed)
    return [header, *[["" if v is None else f"{v:.1f}" if type(v) is float else str(v) for v in r] for r in printed]]


def _number(text: str):
    """A CSV cell as the value it prints: an int, a float (always printed with its decimal point) or text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _split_copies(tmp_path, source, parts: int, seed: int, table="CUPTI_ACTIVITY_KIND_KERNEL", where="true"):
    """`parts` copies of `source` in tmp_path whose rows of `table` (those matching `where`) partition the
    original's: each row is kept in exactly one copy, chosen at random."""
    con = sqlite3.connect(source)
    ids = [r for (r,) in con.execute(f"SELECT rowid FROM {table} WHERE {where}")]
    con.close()
    rng = random.Random(seed)
    return _copies_by_owner(tmp_path, source, {i: rng.randrange(parts) for i in ids}, parts, f"split_{seed}", table)


def _copies_by_owner(tmp_path, source, owner: dict[int, int], parts: int, stem: str,
                     table="CUPTI_ACTIVITY_KIND_KERNEL"):
    """`parts` copies of `source` in tmp_path, <stem>.<part>.sqlite, copy k keeping the rows of `table` that
    `owner` gives to k (rows it does not list are kept everywhere)."""
    paths = [tmp_path / f"{stem}.{part}.sqlite" for part in range(parts)]
    for p in paths:
        shutil.copy(source, p)
    _keep_owned(paths, owner, table)
    return paths


def _keep_owned(paths, owner: dict[int, int], table: str) -> None:
    """In file k of `paths`, delete the rows of `table` that `owner` gives to another file."""
    for part, path in enumerate(paths):
        con = sqlite3.connect(path)
        con.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(i,) for i, o in owner.items() if o != part])
        con.commit()
        con.close()


@pytest.mark.parametrize("seed,parts", [(1, 2), (2, 3), (3, 5)])
def test_combined_equals_the_whole_on_random_splits(tmp_path, seed, parts):
    """A profile's kernels dealt at random into k files: the combined table of the k files equals the single-file
    report of the original (itself checked against nsys stats), every cell (printed as the recipes:
    `recipe_printed`); each rank equals its own file."""
    paths = _split_copies(tmp_path, TRAIN, parts, seed)
    pset = ProfileSet([str(p) for p in paths], engine=Sequential())
    assert pset.rank_source == "file name" and pset.ranks == list(range(parts))
    result = kernel_summary_set(pset)
    with open_profile(TRAIN) as p:
        whole = kernel_summary(p)
    assert {r[-1]: r for r in result.combined.rows} == {r[-1]: r for r in recipe_printed(whole.columns, whole.rows)}
    for rank, path in enumerate(paths):
        with open_profile(path) as p:
            own = kernel_summary(p)
        mine = {row[-1]: row[1:] for row in result.ranks.rows if row[0] == rank}
        assert mine == {r[-1]: r for r in recipe_printed(own.columns, own.rows)}


@pytest.mark.parametrize("seed,parts", [(4, 2), (5, 3)])
def test_kernels_by_launch_config_combined_equals_the_whole_on_random_splits(tmp_path, seed, parts):
    """kernels --by-launch-config (= cuda_gpu_kern_gb_sum) and --name short on random splits: the combined table
    equals the original's single-file report, every cell (`recipe_printed`), and each rank its own file's."""
    from nsys_analytics.core.filters import KernelFilter

    paths = _split_copies(tmp_path, TRAIN, parts, seed)
    pset = ProfileSet([str(p) for p in paths], engine=Sequential())
    for by_launch, name_kind in ((True, "demangled"), (False, "short")):
        result = kernel_summary_set(pset, KernelFilter(name_kind=name_kind), by_launch=by_launch)
        with open_profile(TRAIN) as p:
            whole = kernel_summary(p, KernelFilter(name_kind=name_kind), by_launch)
        assert sorted(result.combined.rows) == sorted(recipe_printed(whole.columns, whole.rows))
        assert len(whole.rows) > 10
        for rank, path in enumerate(paths):
            with open_profile(path) as p:
                own = kernel_summary(p, KernelFilter(name_kind=name_kind), by_launch)
            assert sorted(row[1:] for row in result.ranks.rows if row[0] == rank) == sorted(recipe_printed(
                own.columns, own.rows))
    # classify: instances and time per name summed over the files = the original's (Time (%) to 1e-9)
    from nsys_analytics.capabilities.categories.classify import classify_kernels
    from nsys_analytics.capabilities.categories.rules import load_rules
    from nsys_analytics.capabilities.ranks.sets import classify_set

    combined = classify_set(pset, load_rules(())).combined.rows
    with open_profile(TRAIN) as p:
        whole = classify_kernels(p, load_rules(())).rows
    assert [r[:5] + r[6:] for r in combined] == [r[:5] + r[6:] for r in whole]
    assert all(abs(a[5] - b[5]) < 1e-9 for a, b in zip(combined, whole))


def test_kernels_with_graphs_combined_equals_the_whole_on_a_random_split(tmp_path):
    """kernels --graphs: graphs_whole's whole CUDA graph executions dealt at random into 3 files; the combined table
    ([CUDA graph N] rows and kernels) equals the original's single-file --graphs report (`recipe_printed`)."""
    from nsys_analytics.core.filters import KernelFilter

    source = PROFILES / "graphs_whole.sqlite"
    paths = _split_copies(tmp_path, source, 3, 11, table="CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
    con = sqlite3.connect(source)
    kernels = [r for (r,) in con.execute("SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL")]
    con.close()
    rng = random.Random(12)
    owner = {i: rng.randrange(3) for i in kernels}
    _keep_owned(paths, owner, "CUPTI_ACTIVITY_KIND_KERNEL")  # the kernels dealt too
    result = kernel_summary_set(ProfileSet([str(p) for p in paths], engine=Sequential()), KernelFilter(), graphs=True)
    with open_profile(source) as p:
        whole = kernel_summary(p, KernelFilter(), graphs=True)
    assert any(str(r[-1]).startswith("[CUDA graph") for r in whole.rows)
    assert sorted(result.combined.rows) == sorted(recipe_printed(whole.columns, whole.rows))


def _owner_by_top_range(source, parts: int, seed: int) -> dict[int, int]:
    """rowid of each kernel -> the part it goes to: the kernels launched (on any thread of the process) while one
    outermost NVTX range of the process was open go together, so that every range instance's kernels land in one
    file whatever the attribution; the others one by one."""
    import bisect

    con = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    kernels = con.execute("SELECT k.rowid, r.start, r.globalTid >> 24 FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                          "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId").fetchall()
    ranges = con.execute("SELECT start, end, globalTid >> 24 AS process FROM NVTX_EVENTS WHERE eventType IN (59, 60) "
                         "AND end IS NOT NULL ORDER BY process, start, end DESC").fetchall()
    con.close()
    tops: dict[int, list[tuple[int, int]]] = {}
    for start, end, tid in ranges:
        mine = tops.setdefault(tid, [])
        if not mine or start >= mine[-1][1]:
            mine.append((start, end))
        elif end > mine[-1][1]:
            mine[-1] = (mine[-1][0], end)
    rng = random.Random(seed)
    group_part: dict[tuple, int] = {}
    owner = {}
    for rowid, launch, tid in kernels:
        mine = tops.get(tid, [])
        i = bisect.bisect_right(mine, (launch, float("inf"))) - 1
        group = (tid, i) if i >= 0 and mine[i][0] <= launch < mine[i][1] else ("kernel", rowid)
        owner[rowid] = group_part.setdefault(group, rng.randrange(parts))
    return owner


@pytest.mark.parametrize("seed,parts", [(8, 2), (9, 3)])
def test_nvtx_kernels_combined_equals_the_whole_on_random_splits(tmp_path, seed, parts):
    """nvtx-kernels (= nvtx_kern_sum) on random splits of the kernels (those of one outermost range instance kept
    together, as a rank holds whole ranges): the combined table (range, style, kernel name) equals the original's
    single-file report, every cell (its PID/TID columns aside: one process, one thread per range name here); each
    rank its own file's; --attribution process too."""
    from nsys_analytics.capabilities.nvtx.report import nvtx_kernel_summary
    from nsys_analytics.capabilities.ranks.nvtx import nvtx_kernels_set

    owner = _owner_by_top_range(TRAIN, parts, seed)
    paths = _copies_by_owner(tmp_path, TRAIN, owner, parts, f"nk_{seed}")
    assert len(set(owner.values())) == parts
    pset = ProfileSet([str(p) for p in paths], engine=Sequential())
    for mode in ("thread", "process"):
        result = nvtx_kernels_set(pset, mode)
        with open_profile(TRAIN) as p:
            whole = nvtx_kernel_summary(p, mode)
        cols = whole.columns
        assert len({(r[cols.index("range")], r[cols.index("kernel_name")]) for r in whole.rows}) == len(whole.rows)
        expected = [tuple(v for c, v in zip(cols, r) if c not in ("pid", "tid")) for r in whole.rows]
        assert result.combined.rows == expected
        assert len(expected) > 20 and any(r[0] for r in expected)
        for rank, path in enumerate(paths):
            with open_profile(path) as p:
                own = nvtx_kernel_summary(p, mode)
            assert [row[1:] for row in result.ranks.rows if row[0] == rank] == own.rows


def test_nvtx_combined_equals_the_whole_on_a_random_split(tmp_path):
    """The same for nvtx_sum: NVTX ranges (not the domain and category definitions) dealt into 3 files; the
    combined table equals the original's report (`recipe_printed`)."""
    from nsys_analytics.capabilities.nvtx.report import nvtx_summary
    from nsys_analytics.capabilities.ranks.nvtx import nvtx_sum_set

    paths = _split_copies(tmp_path, TRAIN, 3, 7, table="NVTX_EVENTS", where="eventType IN (59, 60)")
    result = nvtx_sum_set(ProfileSet([str(p) for p in paths], engine=Sequential()))
    with open_profile(TRAIN) as p:
        whole = nvtx_summary(p)
    assert result.combined.rows == recipe_printed(whole.columns, whole.rows)


def test_engines_give_identical_results():
    """Sequential, the local process pool and a real Dask cluster (scheduler + 2 worker processes on
    127.0.0.1) return the same frames."""
    distributed = pytest.importorskip("distributed")
    inputs = [str(TRAIN), str(FORWARD), str(PROFILES / "gpt_sdpa_train.sqlite")]
    seq = kernel_summary_set(ProfileSet(inputs, engine=Sequential()))
    pool = kernel_summary_set(ProfileSet(inputs, engine=LocalPool(2)))
    from nsys_analytics.data.engine import DaskEngine

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


def test_every_bad_file_among_many_is_named(tmp_path):
    """Three bad files among good ones: the error names the first with what is wrong and the other two by name."""
    (tmp_path / "report.0.sqlite").symlink_to(TRAIN)
    (tmp_path / "report.1.sqlite").write_bytes(TRAIN.read_bytes()[:50_000])  # truncated
    (tmp_path / "report.2.sqlite").write_bytes(b"not a database")
    (tmp_path / "report.3.sqlite").write_bytes(b"")
    with pytest.raises(ProfileError) as e:
        ProfileSet([str(tmp_path)], engine=Sequential())
    message = str(e.value)
    assert "report.1.sqlite" in message and "(and 2 more bad file(s): report.2.sqlite, report.3.sqlite)" in message
    assert message.endswith("go on without them")


def test_a_folder_of_runs_folders_names_the_folders_that_hold_profiles(tmp_path):
    """A folder holding one folder per run (and an empty one): not 'no profile' alone, but which folders hold how
    many, to pass one of them."""
    for run, files in (("run_a", (TRAIN, FORWARD)), ("run_b", (TRAIN,))):
        (tmp_path / run).mkdir()
        for i, f in enumerate(files):
            (tmp_path / run / f"report.{i}.sqlite").symlink_to(f)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ProfileError) as e:
        ProfileSet([str(tmp_path)], engine=Sequential())
    assert "2 folder(s) inside it do: run_a/ (2), run_b/ (1); pass one of them" in str(e.value)
    for command in ("kernels", "breakdown", "ranks", "diff"):  # breakdown and diff expand their folders themselves
        result = CliRunner().invoke(cli, [command, str(tmp_path)] + ([str(TRAIN)] if command == "diff" else []))
        assert result.exit_code == 1 and "inside it do: run_a/ (2), run_b/ (1)" in result.output, (command, result)
    (tmp_path / "run_a" / "report.0.sqlite").unlink()
    (tmp_path / "run_a" / "report.1.sqlite").unlink()
    (tmp_path / "run_b" / "report.0.sqlite").unlink()
    with pytest.raises(ProfileError, match="is a directory with no nsys profile in it"):
        ProfileSet([str(tmp_path)], engine=Sequential())


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


@pytest.mark.parametrize("command", ["kernels", "nccl"])
def test_combined_and_per_rank_together_are_a_usage_error(command):
    """Each flag shows one of the two tables; given both, the one named last won and the other was dropped
    without a word. Each alone still shows its table."""
    both = _cli(command, str(TRAIN), str(FORWARD), "--combined", "--per-rank", "--jobs", "1")
    assert both.returncode == 2 and "--combined and --per-rank" in both.stderr and not both.stdout
    combined = _cli(command, str(TRAIN), str(FORWARD), "--combined", "--format", "csv", "--jobs", "1")
    per_rank = _cli(command, str(TRAIN), str(FORWARD), "--per-rank", "--format", "csv", "--jobs", "1")
    assert combined.returncode == 0 and per_rank.returncode == 0, combined.stderr + per_rank.stderr
    assert not combined.stdout.startswith("Rank,") and per_rank.stdout.startswith("Rank,")
    assert "all" not in {line.split(",")[0] for line in per_rank.stdout.splitlines()[1:]}


def test_a_single_instance_std_is_blank_in_every_format():
    """Over several profiles a single instance's StdDev is blank, as the recipes print it: an empty cell in the
    table, markdown and CSV, null in JSON; every other row's StdDev is printed."""
    import json

    from nsys_analytics.capabilities.ranks.nvtx import nvtx_sum_set
    from nsys_analytics.capabilities.ranks.render import render_set

    result = nvtx_sum_set(ProfileSet([str(TRAIN), str(FORWARD)], engine=Sequential()))
    text = {fmt: render_set(result, fmt) for fmt in ("table", "markdown", "csv", "json")}
    records = [r for rows in json.loads(text["json"]).values() if isinstance(rows[0], dict) for r in rows]
    assert {r["instances"] == 1 for r in records} == {True, False}
    assert all((r["stddev_ns"] is None) == (r["instances"] == 1) for r in records)
    tables = {"csv": [list(csv.DictReader(io.StringIO(text["csv"])))], "markdown": _markdown_tables(text["markdown"]),
              "table": _aligned_tables(text["table"])}
    for fmt, parsed in tables.items():
        rows = [r for t in parsed for r in t]
        assert len(parsed) == (1 if fmt == "csv" else 2) and len(rows) == len(records), fmt
        assert all((r["StdDev (ns)"] == "") == (r["Instances"] == "1") for r in rows), fmt


def _markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """The tables of a markdown text, each as its rows of {header: cell}."""
    tables, header = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if header is None:
            header = cells
            tables.append([])
        elif not line.startswith("|-") and not line.startswith("|:"):
            tables[-1].append(dict(zip(header, cells)))
    return tables


def _aligned_tables(text: str) -> list[list[dict[str, str]]]:
    """The tables of the aligned text format, each as its rows of {header: cell}: the columns are where the dashes
    under the header are."""
    lines, tables = text.splitlines(), []
    for i, line in enumerate(lines):
        if i and line.startswith("--"):
            spans = [m.span() for m in re.finditer(r"-+", line)]
            header = [lines[i - 1][a:b].strip() for a, b in spans]
            body = itertools.takewhile(bool, lines[i + 1:])
            tables.append([{h: row[a:b].strip() for h, (a, b) in zip(header, spans)} for row in body])
    return tables


def test_unreachable_scheduler_is_one_line_exit_1_and_fast():
    start = time.monotonic()
    out = _cli("kernels", str(TRAIN), str(FORWARD), "--scheduler", "tcp://127.0.0.1:9")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in out.stderr
    assert time.monotonic() - start < 20


def test_one_corrupt_file_among_64_on_the_command_line(tmp_path):
    """64 rank files (copies of a small export), one of them truncated: `kernels` names it in one line and exits 1;
    with --skip-bad it goes on with the 63 others, says so, and their combined counts are 63 times one file's;
    `ranks` the same (over 3 good files and the bad one)."""
    for r in range(64):
        if r == 40:
            (tmp_path / f"report.{r}.sqlite").write_bytes(FORWARD.read_bytes()[:40_000])
        else:
            shutil.copy(FORWARD, tmp_path / f"report.{r}.sqlite")
    out = _cli("kernels", str(tmp_path), "--format", "csv", "--jobs", "2")
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "report.40.sqlite" in out.stderr and "--skip-bad" in out.stderr and not out.stdout
    out = _cli("kernels", str(tmp_path), "--format", "csv", "--jobs", "2", "--skip-bad", "--combined")
    assert out.returncode == 0, out.stderr
    assert "63 ranks (rank ids from the file name)" in out.stderr
    assert "skipped (--skip-bad)" in out.stderr and "report.40.sqlite" in out.stderr
    one = _cli("kernels", str(FORWARD), "--format", "csv").stdout.splitlines()
    combined = out.stdout.splitlines()
    assert len(combined) == len(one)
    instances = {row[-1]: row[2] for row in csv.reader(one[1:])}
    assert all(int(row[2]) == 63 * int(instances[row[-1]]) for row in csv.reader(combined[1:]))
    for extra in [f"report.{r}.sqlite" for r in range(3, 64) if r != 40]:
        (tmp_path / extra).unlink()
    ranks = _cli("ranks", str(tmp_path), "--jobs", "2", "--skip-bad")  # report.0-2 and the bad one
    assert ranks.returncode == 0 and "report.40.sqlite" in ranks.stderr and "3 ranks" in ranks.stdout


def test_unreachable_scheduler_for_ranks_and_nccl_is_one_line_exit_1():
    for command in ("ranks", "nccl"):
        out = _cli(command, str(TRAIN), str(FORWARD), "--scheduler", "tcp://127.0.0.1:9")
        assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
        assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in out.stderr


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
    """Each rank's rows of the CSV over several profiles equal its single-file output (with a rank column); for
    nvtx and nvtx-gpu, printed as the recipes (`recipe_printed_csv`)."""
    out = _cli(command, str(TRAIN), str(FORWARD), "--format", "csv", "--jobs", "1")
    assert out.returncode == 0, out.stderr
    header, *rows = csv.reader(io.StringIO(out.stdout))
    assert header[0] == "Rank"
    for rank, path in enumerate((TRAIN, FORWARD)):
        single = _cli(command, str(path), "--format", "csv").stdout
        as_csv = recipe_printed_csv if command in ("nvtx", "nvtx-gpu") else lambda t: list(csv.reader(io.StringIO(t)))
        expected = as_csv(single)
        assert header[1:] == expected[0]
        mine = [row[1:] for row in rows if row[0] == str(rank)]
        assert mine == expected[1:] and mine


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
    the `nsys stats cuda_gpu_kern_sum` CSV of the whole file, every cell (printed as the recipes:
    `recipe_printed_csv`)."""
    from .conftest import SHARED

    path = SHARED / "h200-nsys2025.3" / "multiproc.sqlite"
    pset = ProfileSet([str(path)], engine=Sequential())
    assert pset.rank_source == "process order" and len({m.pid for m in pset.members}) == 2
    out = _cli("kernels", str(path), "--by-rank", "--combined", "--format", "csv", "--jobs", "1")
    oracle = SHARED / "h200-nsys2025.3" / "oracle" / "multiproc" / "multiproc_cuda_gpu_kern_sum.csv"
    assert list(csv.reader(io.StringIO(out.stdout))) == recipe_printed_csv(oracle.read_text())


def test_ranks_on_two_hosts_are_aligned_by_session_start_and_called_approximate(tmp_path):
    """Same file as two hosts, the second one's session starting 5 ms later on the wall clock: its events are
    shifted by +5 ms onto the first host's clock, and the alignment is said to be approximate. One host, two
    sessions: shifted by the difference of their starts too, with no note."""
    from nsys_analytics.capabilities.ranks import data

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
    # one host, two sessions: each stamps from its own start, so the shift is still the starts' difference
    same_host = ProfileSet([str(a), str(FORWARD)], engine=Sequential())
    starts = [sqlite3.connect(p).execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
              for p in (a, FORWARD)]
    assert [m.clock_offset_ns for m in same_host.members] == [0, starts[1] - starts[0]] != [0, 0]
    assert not any("hosts" in n for n in same_host.notes)


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


def test_commands_of_one_input_refuse_several_with_a_usage_error():
    """sql (one profile, -a for more) and ncu (one Nsight Compute report) have no multi-profile answer: exit 2 and
    an error line saying so. (timeline draws several profiles as ranks on one axis: tests/test_visual_ranks.py.)"""
    out = _cli("sql", str(TRAIN), str(FORWARD))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "is a profile, not a query" in out.stderr and "-a ALIAS=PROFILE" in out.stderr
    for args in (("ncu", "a.ncu-rep", "b.ncu-rep"),):
        out = _cli(*args)
        assert out.returncode == 2 and "Error: Got unexpected extra argument" in out.stderr
