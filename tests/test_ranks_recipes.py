"""Our multi-rank tables against `nsys recipe` on the real multi-rank runs of fixtures/ranks/ (2 and 4 ranks, DDP and
FSDP2, nsys 2025.3.1): every exact cell of the recipes' all_stats and rank_stats, and each NCCL kernel of
nccl_gpu_overlap_trace.

Exact cells: Count, Sum, Min, Max and Mean of both tables; Median and Std of rank_stats (one rank's own values); the
`Sum of NVTX Ranges on CPU` of nvtx_gpu_proj_sum. The combined quartiles and Std are "(approx)" in nsys and are not
compared; nor are the per-rank quartiles (our tables have none).

Every exact cell must be equal, blanks included. Our multi-rank tables follow the recipes' two printing conventions
where they differ from `nsys stats` (docs/ranks.md, "Agreement with `nsys recipe`"): one decimal as numpy rounds
(x * 10, then half to even: a mean of 1220563.25 reads .2, where `nsys stats` prints .3), and a blank Std for a
single instance (pandas' NaN; `nsys stats` prints 0.0). `test_the_fixtures_exercise_both_conventions` counts, from
the recipes' CSVs alone, the cells where the two conventions part, so the equality above is seen to cover them.
"""

from __future__ import annotations

import csv
import lzma
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nsys_analytics.data.engine import Sequential
from nsys_analytics.data.profile_set import ProfileSet

from .conftest import ORACLE, RANKS, rank_files

# The runs whose recipes were made over their per-rank reports (fixtures/README.md, "The recipe oracles").
RUNS = ["ddp_straggler", "ddp_balanced", "fsdp2_balanced", "fsdp2_forward", "fsdp2_backward", "fsdp4_balanced",
        "fsdp4_data", "fsdp4_backward", "ddp4_balanced", "ddp4_data", "ddp4_backward"]
# One report of a whole 2-process launch: the recipe reads it as one file (its one "rank" is every process), we split
# it into ranks by process; its rank_stats is then the whole job, as our combined table.
WHOLE = ["ddp_whole"]
pytestmark = pytest.mark.skipif(not all((RANKS / r).is_dir() for r in RUNS + WHOLE),
                                reason="the rank fixtures are absent")

ALL_FIELDS = ("Count", "Sum", "Min", "Max", "Mean")
RANK_FIELDS = (*ALL_FIELDS, "Median", "Std")
CPU_SUM = "Sum of NVTX Ranges on CPU"  # nvtx_gpu_proj_sum only
# Our column (of any of the four tables) -> the recipe's header.
OURS = {"instances": "Count", "range_instances": "Count", "total_time_ns": "Sum", "total_proj_time_ns": "Sum",
        "min_ns": "Min", "proj_min_ns": "Min", "max_ns": "Max", "proj_max_ns": "Max", "avg_ns": "Mean",
        "proj_avg_ns": "Mean", "med_ns": "Median", "proj_med_ns": "Median", "stddev_ns": "Std",
        "proj_stddev_ns": "Std", "total_range_time_ns": CPU_SUM}


def recipe_path(run: str, recipe: str, table: str) -> Path:
    """fixtures/oracle/RUN_recipes/RECIPE__TABLE.csv, or .csv.xz for the large ones."""
    found = sorted((ORACLE / f"{run}_recipes").glob(f"{recipe}__{table}.csv*"))
    assert found, f"no {recipe} {table} CSV for {run}"
    return found[0]


def recipe_rows(run: str, recipe: str, table: str) -> list[dict[str, str]]:
    path = recipe_path(run, recipe, table)
    with (lzma.open if path.suffix == ".xz" else open)(path, "rt", newline="") as f:
        return list(csv.DictReader(f))


@cache
def profile_set(run: str) -> ProfileSet:
    return ProfileSet([str(p) for p in rank_files(run)], engine=Sequential())


def numpy_round(x: float) -> float:
    """The recipes' rounding to one decimal (pandas' DataFrame.round: numpy's x * 10, half to even, / 10)."""
    return float(np.round(x, 1))


def stats_round(x: float) -> float:
    """`nsys stats`' rounding to one decimal (SQLite's round() in nsys): half away from zero on the double's exact
    decimal value. Written out with Decimal: the SQLite of Python's sqlite3 (3.40) rounds a double just below a half
    up (1075353 / 60 = 17922.5499999999992... -> 17922.6, where nsys prints 17922.5)."""
    return float(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def ours_by_key(result, name_column: str, ranked: bool) -> dict[tuple, dict[str, float]]:
    """{(rank?, name): {recipe header: our cell}} of one of our tables; names without their NVTX domain (the
    recipes print the range text only)."""
    out = {}
    for row in result.rows:
        r = dict(zip(result.columns, row))
        name = r[name_column]
        if name_column == "range" and ":" in name:
            name = name.split(":", 1)[1]
        key = ((str(r["rank"]),) if ranked else ()) + (name,)
        assert key not in out, f"two rows of ours for {key}"
        out[key] = {OURS[c]: v for c, v in r.items() if c in OURS}
    return out


@dataclass
class Tally:
    """Cells of one recipe over one run: compared and equal."""

    compared: int = 0
    equal: int = 0
    differ: list = field(default_factory=list)


def convention_cells(row: dict[str, str], fields: tuple[str, ...]) -> dict[str, int]:
    """The cells of one recipe row where `nsys stats`' conventions would print something else, from the recipe's
    own Sum and Count: a Mean that nsys stats' and numpy's rounding set apart, a single instance's Std."""
    count = int(float(row["Count"]))
    mean = int(float(row["Sum"])) / count
    return {"rounding": int(numpy_round(mean) != stats_round(mean)),
            "single instance std": int("Std" in fields and count == 1)}


def compare_cell(tally: Tally, key: tuple, name: str, theirs: str, mine) -> None:
    """Equal: both blank, or the same number."""
    tally.compared += 1
    blank = mine is None or (isinstance(mine, float) and np.isnan(mine))
    if (theirs == "" and blank) or (theirs != "" and not blank and float(theirs) == float(mine)):
        tally.equal += 1
    else:
        tally.differ.append((key, name, theirs, mine))


def compare_recipe(run: str, recipe: str, result, name_column: str, extra: tuple[str, ...] = ()) -> Tally:
    """Every exact cell of the recipe's all_stats (against our combined table) and rank_stats (our per-rank
    table; for a report of the whole launch, our combined table); the rows of each side are the same keys."""
    tally = Tally()
    pairs = (("all_stats", result.combined, False, ALL_FIELDS),
             ("rank_stats", result.combined if run in WHOLE else result.ranks, run not in WHOLE, RANK_FIELDS))
    for table, ours_table, ranked, fields in pairs:
        mine = ours_by_key(ours_table, name_column, ranked)
        rows = recipe_rows(run, recipe, table)
        assert run not in WHOLE or table == "all_stats" or {r["Rank"] for r in rows} == {"0"}
        keys = [((r["Rank"],) if ranked else ()) + (r.get("Name") or r["Text"],) for r in rows]
        assert rows and len(set(keys)) == len(keys) and set(keys) == set(mine), (table, set(keys) ^ set(mine))
        for key, row in zip(keys, rows):
            for name in (*fields, *extra):
                compare_cell(tally, key, name, row[name], mine[key][name])
    assert not tally.differ, f"{len(tally.differ)} cells differ, e.g. {tally.differ[:5]}"
    return tally


def expected_cells(run: str, recipe: str, extra: int = 0) -> int:
    """Exact cells of the recipe's two tables, from their shape alone."""
    return (len(recipe_rows(run, recipe, "all_stats")) * (len(ALL_FIELDS) + extra)
            + len(recipe_rows(run, recipe, "rank_stats")) * (len(RANK_FIELDS) + extra))


# -- the four summaries -------------------------------------------------------------------------------

def kernels_tally(run: str) -> Tally:
    from nsys_analytics.core.filters import KernelFilter
    from nsys_analytics.capabilities.ranks.sets import kernel_summary_set

    result = kernel_summary_set(profile_set(run), KernelFilter(name_kind="short"))  # the recipe prints short names
    return compare_recipe(run, "cuda_gpu_kern_sum", result, "name")


def nccl_tally(run: str) -> Tally:
    from nsys_analytics.capabilities.ranks.sets import nccl_sum_set

    return compare_recipe(run, "nccl_sum", nccl_sum_set(profile_set(run)), "name")


def nvtx_gpu_tally(run: str) -> Tally:
    from nsys_analytics.capabilities.ranks.nvtx import nvtx_gpu_set

    return compare_recipe(run, "nvtx_gpu_proj_sum", nvtx_gpu_set(profile_set(run)), "range", extra=(CPU_SUM,))


def nvtx_tally(run: str) -> Tally:
    from nsys_analytics.capabilities.ranks.nvtx import nvtx_sum_set

    return compare_recipe(run, "nvtx_sum", nvtx_sum_set(profile_set(run)), "range")


@pytest.mark.parametrize("run", RUNS + WHOLE)
def test_kernels_equal_the_cuda_gpu_kern_sum_recipe(run):
    tally = kernels_tally(run)
    assert tally.equal == tally.compared == expected_cells(run, "cuda_gpu_kern_sum") > 200


@pytest.mark.parametrize("run", RUNS + WHOLE)
def test_nccl_equals_the_nccl_sum_recipe(run):
    tally = nccl_tally(run)
    assert tally.equal == tally.compared == expected_cells(run, "nccl_sum") > 50


@pytest.mark.parametrize("run", RUNS + WHOLE)
def test_nvtx_gpu_equals_the_nvtx_gpu_proj_sum_recipe(run):
    tally = nvtx_gpu_tally(run)
    assert tally.equal == tally.compared == expected_cells(run, "nvtx_gpu_proj_sum", extra=1) > 200


NVTX_SUM_RUNS = [r for r in RUNS + WHOLE if (ORACLE / f"{r}_recipes" / "nvtx_sum__all_stats.csv").exists()]


@pytest.mark.parametrize("run", NVTX_SUM_RUNS)
def test_nvtx_equals_the_nvtx_sum_recipe(run):
    tally = nvtx_tally(run)
    assert tally.equal == tally.compared == expected_cells(run, "nvtx_sum") > 200


RECIPE_RUNS = {"cuda_gpu_kern_sum": RUNS + WHOLE, "nccl_sum": RUNS + WHOLE, "nvtx_gpu_proj_sum": RUNS + WHOLE,
               "nvtx_sum": NVTX_SUM_RUNS}


def test_the_fixtures_exercise_both_conventions():
    """The cells compared above where `nsys stats`' conventions would print something else, counted from the
    recipes' CSVs alone: 99 Means that nsys stats' and numpy's rounding set apart, 482 single-instance Stds (each blank
    in the recipe). Equal in every cell, our tables follow the recipes' conventions in all of them."""
    totals = {"rounding": 0, "single instance std": 0}
    for recipe, runs in RECIPE_RUNS.items():
        for run in runs:
            for table, fields in (("all_stats", ALL_FIELDS), ("rank_stats", RANK_FIELDS)):
                for row in recipe_rows(run, recipe, table):
                    cells = convention_cells(row, fields)
                    assert not cells["single instance std"] or row["Std"] == "", (run, recipe, row)
                    for reason, n in cells.items():
                        totals[reason] += n
    assert totals == {"rounding": 99, "single instance std": 482}


# -- NCCL kernels beside compute ----------------------------------------------------------------------

def overlap_tally(run: str) -> Tally:
    """Each NCCL kernel of nccl_gpu_overlap_trace against ours (matched by rank, start and end): its short name,
    PID, device, and `Compute Overlap`, the recipe's rounding of our overlap_ns as a % of the kernel's duration.
    (`Communication Overlap`, an NCCL kernel's overlap with other NCCL kernels, we do not compute.)"""
    from nsys_analytics.capabilities.ranks.sets import nccl_frame

    pset = profile_set(run)
    ours = nccl_frame(pset)
    offset = {m.rank: m.clock_offset_ns for m in pset.members}  # the recipe shows each file's own clock
    ours = ours.assign(start_ns=ours["start_ns"] - ours["rank"].map(offset),
                       end_ns=ours["end_ns"] - ours["rank"].map(offset))
    recipe = pd.read_csv(recipe_path(run, "nccl_gpu_overlap_trace", "rank_trace"))  # pandas opens .xz itself
    recipe = recipe[recipe["Name"].str.startswith("nccl")]
    m = ours.merge(recipe, left_on=["rank", "start_ns", "end_ns"], right_on=["Rank", "Start", "End"],
                   validate="one_to_one")
    assert len(m) == len(ours) == len(recipe) > 100
    pct = [numpy_round(o * 100.0 / d) for o, d in zip(m["overlap_ns"], m["duration_ns"])]
    checks = {"Start, End": [True] * len(m), "Name": list(m["name"].str.split("(").str[0] == m["Name"]),
              "PID": list(m["pid"] == m["PID"]), "DeviceID": list(m["device"] == m["DeviceID"]),
              "Compute Overlap": list(np.array(pct) == m["Compute Overlap"].to_numpy())}
    tally = Tally()
    for column, same in checks.items():
        cells = 2 if column == "Start, End" else 1
        tally.compared += cells * len(same)
        tally.equal += cells * sum(same)
    assert (m["Compute Overlap"] > 0).sum() > 10
    return tally


@pytest.mark.parametrize("run", RUNS)
def test_nccl_overlap_equals_the_nccl_gpu_overlap_trace_recipe(run):
    tally = overlap_tally(run)
    assert tally.equal == tally.compared > 500
