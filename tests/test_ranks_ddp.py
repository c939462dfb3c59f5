"""The 2-GPU DDP fixtures: the straggler verdicts, the waits checked by hand from the raw tables, and the combined
and per-rank tables against `nsys recipe` (cell for cell where the recipe is exact)."""

from __future__ import annotations

import sqlite3

import pytest

from nsys_analytics.engine import Sequential
from nsys_analytics.profile_set import ProfileSet
from nsys_analytics.ranks.sets import ranks_report

from .conftest import ORACLE, PROFILES

STRAGGLER = sorted(PROFILES.glob("ddp_straggler.*.sqlite"))
BALANCED = sorted(PROFILES.glob("ddp_balanced.*.sqlite"))
WHOLE = PROFILES / "ddp_whole.sqlite"
pytestmark = pytest.mark.skipif(len(STRAGGLER) < 2, reason="the DDP fixtures (fixtures/profiles/ddp_*) are absent")
MS = 1_000_000


@pytest.fixture(scope="module")
def straggler():
    pset = ProfileSet([str(p) for p in STRAGGLER], engine=Sequential())
    return pset, ranks_report(pset)


def test_straggler_is_rank_1_losing_its_time_in_data(straggler):
    pset, report = straggler
    assert pset.ranks == [0, 1]
    assert report.straggler == 1
    finding = next(f for f in report.findings if f.get("rank") == 1)
    assert finding["phase"] == "data"
    assert 25 * MS < finding["excess_ns_per_step"] < 40 * MS  # the workload sleeps 30 ms in `data`
    assert 20 * MS < finding["caused_wait_ns_per_step"] < 40 * MS
    waits = report.summary.set_index("rank")["wait_ns"]
    assert waits[0] > 20 * MS and waits[1] < 2 * MS  # rank 0 waits, rank 1 (the straggler) hardly


def test_balanced_run_has_no_straggler():
    pset = ProfileSet([str(p) for p in BALANCED], engine=Sequential())
    report = ranks_report(pset)
    assert report.straggler is None
    assert any(f["message"].startswith("no straggler") for f in report.findings)


@pytest.mark.skipif(not WHOLE.exists(), reason="no ddp_whole fixture")
def test_one_report_of_the_whole_launch_is_split_and_gives_the_same_verdict():
    pset = ProfileSet([str(WHOLE)], engine=Sequential())
    assert len(pset) == 2 and len({m.pid for m in pset.members}) == 2
    report = ranks_report(pset)
    assert report.straggler == 1
    assert next(f for f in report.findings if f.get("rank") == 1)["phase"] == "data"


def _nccl_kernels(path):
    """(start, end) of the NCCL kernels of one rank file, read with sqlite3 (independent of our views)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = con.execute("SELECT k.start, k.end, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                       "JOIN StringIds s ON s.id = k.demangledName WHERE s.value LIKE 'nccl%' ORDER BY k.start").fetchall()
    con.close()
    return rows


def test_waits_by_hand_on_the_fixture(straggler):
    """Each AllReduce instance: the k-th kernel of a name on rank 0 against the k-th on rank 1; the one that
    starts first waits (latest start - its start), at most its own duration."""
    _, report = straggler
    r0, r1 = (_nccl_kernels(p) for p in STRAGGLER)
    by_name = {}
    for rank, rows in ((0, r0), (1, r1)):
        for start, end, name in rows:
            by_name.setdefault((rank, name), []).append((start, end))
    checked = 0
    coll = report.collectives.set_index(["rank", "name", "ordinal"])
    for (rank, name), kernels in by_name.items():
        other = by_name.get((1 - rank, name), [])
        for k, ((s, e), (so, _eo)) in enumerate(zip(kernels, other)):
            expected = min(max(so - s, 0), e - s)
            assert coll.loc[(rank, name, k), "wait_ns"] == expected
            checked += 1
    assert checked >= 10


def _recipe_csv(run: str, recipe: str, table: str):
    folder = ORACLE / f"{run}_recipes"
    found = sorted(folder.glob(f"{recipe}*{table}*.csv"))
    if not found:
        pytest.skip(f"no {recipe} {table} CSV in {folder}")
    return found[0]


def _columns(header: list[str]) -> dict[str, int]:
    """The recipe's columns we compare, by meaning: total, instances, avg, min, max, name (and rank)."""
    wanted = {}
    for i, h in enumerate(header):
        low = h.lower()
        for key, needles in (("total", ("total time", "total")), ("instances", ("instances", "count", "num")),
                             ("avg", ("avg", "mean")), ("min", ("min",)), ("max", ("max",)),
                             ("name", ("name", "range")), ("rank", ("rank",))):
            if key not in wanted and any(low.startswith(n) for n in needles):
                wanted[key] = i
    return wanted


def _compare(ours: dict, theirs_csv, key_columns=("name",), ranked=False) -> int:
    """Every exact cell (instances, total, avg, min, max) of the recipe's table equals ours; returns the number
    of cells compared."""
    import csv

    with open(theirs_csv, newline="") as f:
        rows = list(csv.reader(f))
    cols = _columns(rows[0])
    cells = 0
    for row in rows[1:]:
        key = tuple(row[cols[k]] for k in (("rank",) if ranked else ()) + key_columns)
        mine = ours[key]
        for field in ("instances", "total", "min", "max"):
            if field in cols:
                assert int(float(row[cols[field]])) == mine[field], (key, field)
                cells += 1
        if "avg" in cols:
            assert abs(float(row[cols["avg"]]) - mine["avg"]) <= 0.051, (key, "avg")
            cells += 1
    return cells
