"""`ranks` verdicts on sets that are not one whole job (QA): files of several launches name no straggler and say so
in every format; collectives that cannot be matched give no "no straggler"; a partial set tells how long the given
ranks wait for the ranks not given; more ranks than WORLD_SIZE is not a partial set; the findings table carries the
figures. Expected values come from the workloads' truth (fixtures/ranks/RUN/truth.RANK.json), the files' own
environment (sqlite3) and counts by hand, never from our output."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import sqlite3
import statistics
import subprocess
import sys
from collections import Counter

import pytest
from click.testing import CliRunner

from nsys_analytics.capabilities.ranks import analysis, data
from nsys_analytics.capabilities.ranks.sets import ranks_report
from nsys_analytics.cli.main import cli
from nsys_analytics.data.engine import Sequential
from nsys_analytics.data.profile_set import ProfileSet

from .conftest import PROFILES, RANKS, rank_files
from .test_ranks_mismatch import env

MS = 1e6
pytestmark = pytest.mark.skipif(not (RANKS / "fsdp4_data").is_dir(), reason="the stories fixtures are absent")


def run(*args):
    return CliRunner().invoke(cli, ["ranks", "--jobs", "1", *map(str, args)])


def report_of(files):
    return ranks_report(ProfileSet([str(f) for f in files], engine=Sequential()))


def truth(run_name: str) -> dict[int, dict]:
    """Each rank's truth file: its measured steps (the workload's warm-up steps run inside its `warmup` range)."""
    out = {}
    for f in sorted((RANKS / run_name).glob("truth.*.json")):
        t = json.loads(f.read_text())
        out[t["rank"]] = t
    return out


def median(steps, key) -> float:
    return statistics.median(s[key] for s in steps)


def data_lag(run_name: str) -> tuple[int, float]:
    """(the faulty rank, its data-loader stall beyond the other ranks') from the workload's Python timers."""
    t = truth(run_name)
    rank = next(iter(t.values()))["fault_rank"]
    others = statistics.median(median(v["steps"], "data_ms") for r, v in t.items() if r != rank)
    return rank, median(t[rank]["steps"], "data_ms") - others


def extra_lag(run_name: str) -> tuple[int, float]:
    """(the faulty rank, its extra GPU work per step) from the CUDA events around it."""
    t = truth(run_name)
    rank = next(iter(t.values()))["fault_rank"]
    return rank, median(t[rank]["steps"], "extra_ms")


# -- files of several launches --------------------------------------------------------------------------------------
def test_files_of_two_launches_name_no_straggler_and_say_so_in_every_format():
    """fsdp4_data ranks 0-1 with fsdp4_backward ranks 2-3: neither run's fault is on rank 3, where the old verdict put
    a straggler (+14.3 ms); the verdict now says the files are not one job, and which files go together."""
    files = [*rank_files("fsdp4_data")[:2], *rank_files("fsdp4_backward")[2:]]
    assert env(files[0], "TORCHELASTIC_RUN_ID") != env(files[2], "TORCHELASTIC_RUN_ID")
    js = run(*files, "--format", "json")
    assert js.exit_code == 0, js.output
    doc = json.loads(js.stdout)
    assert not any("is the straggler" in f["message"] for f in doc["findings"])
    finding = doc["findings"][0]
    assert "2 different launches" in finding["message"] and "not one job" in finding["message"]
    assert [f.get("kind") for f in doc["findings"]] == ["not_one_job"]
    assert finding["rank"] is None and "straggler is named" in finding["message"]
    assert f"{files[0].name}, {files[1].name}; {files[2].name}, {files[3].name}" in finding["fix"]
    assert any("different launches (TORCHELASTIC_RUN_ID)" in n for n in doc["notes"])
    table = run(*files)
    assert "different launches (TORCHELASTIC_RUN_ID)" in table.stdout and "is the straggler" not in table.stdout
    assert "fix: run `nsys-analytics ranks` on each launch's files apart" in table.stdout
    rows = list(csv.DictReader(io.StringIO(run(*files, "--format", "csv", "--table", "findings").stdout)))
    assert [r.get("kind") for r in rows] == ["not_one_job"] and "not one job" in rows[0]["message"]


def test_two_launches_of_two_ranks_name_no_straggler():
    """ddp_straggler rank 0 with ddp_balanced rank 1: the old verdict named rank 1 (+2.3 ms) while saying rank 0
    waits 30.4 ms a step; the ranks of two launches wait for nothing of each other's."""
    a, b = rank_files("ddp_straggler")[0], rank_files("ddp_balanced")[1]
    assert env(a, "TORCHELASTIC_RUN_ID") != env(b, "TORCHELASTIC_RUN_ID")
    report = report_of([a, b])
    assert report.straggler is None
    assert [f.get("kind") for f in report.findings] == ["not_one_job"]


def test_two_whole_runs_in_one_call_are_not_one_job():
    """`ranks fsdp4_data/ ddp4_data/`: eight files of two launches (the old verdict: "no straggler")."""
    result = run(rank_files("fsdp4_data")[0].parent, rank_files("ddp4_data")[0].parent, "--format", "json")
    doc = json.loads(result.stdout)
    assert [f.get("kind") for f in doc["findings"]] == ["not_one_job"]
    assert not any(f["message"].startswith("no straggler") for f in doc["findings"])


# -- collectives that cannot be matched -----------------------------------------------------------------------------
def _nccl_names(path) -> list[str]:
    """By hand: the names of the file's NCCL kernels (sqlite3)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [n for (n,) in con.execute(
            "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
            "WHERE s.value LIKE 'nccl%Kernel%'")]
    finally:
        con.close()


def test_collectives_that_match_across_few_ranks_leave_the_waits_unmeasured():
    """FSDP ranks 0-1 and DDP ranks 2-3, taken for one job (no job check): their collectives differ, so the waits
    cannot be measured; the old verdict said "no straggler: no rank waits for another". Matched kernels by hand: the
    k-th kernel of a name is matched where every rank has a k-th, i.e. min over the ranks of the name's count."""
    files = [*rank_files("fsdp4_data")[:2], *rank_files("ddp4_data")[2:]]
    counts = [Counter(_nccl_names(f)) for f in files]
    total = sum(sum(c.values()) for c in counts)
    matched = sum(min(c[name] for c in counts) for name in set().union(*counts)) * len(files)
    assert matched < total / 2
    pset = ProfileSet([str(f) for f in files], engine=Sequential())
    report = analysis.build([(m.rank, t) for m, t in pset.imap(data.step_timeline)])  # no job check
    assert report.straggler is None
    message = report.findings[0]["message"]
    assert message.startswith("the waits could not be measured") and f"only {matched} of {total} NCCL" in message
    assert [f.get("kind") for f in report.findings] == ["waits_unmeasured"]


# -- a partial set -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("run_name, lag_of", [("fsdp4_data", data_lag), ("ddp4_data", data_lag),
                                              ("fsdp4_backward", extra_lag), ("ddp4_backward", extra_lag)])
def test_a_partial_set_without_the_straggler_tells_the_wait_for_it(run_name, lag_of):
    """The faulty rank's file left out: the given ranks wait for it about its lag per step (the truth's), where the
    old verdict said "no straggler"; the missing rank is named from the ranks' RANK and WORLD_SIZE."""
    rank, lag = lag_of(run_name)
    files = [f for f in rank_files(run_name) if env(f, "RANK") != str(rank)]
    assert {env(f, "WORLD_SIZE") for f in files} == {"4"} and len(files) == 3
    report = report_of(files)
    finding = report.findings[0]
    assert f"for rank {rank}, which was not given" in finding["message"] and finding["severity"] != "info"
    assert finding["caused_wait_ns_per_step"] / MS == pytest.approx(lag, rel=0.10)
    assert finding["kind"] == "missing_rank" and finding["missing_ranks"] == [rank]
    for r, w in finding["waits_ns_per_step"].items():
        assert w / MS == pytest.approx(lag, rel=0.10), r
    assert f"add the file of rank {rank}" in finding["fix"] and report.straggler is None


def test_one_rank_alone_tells_the_wait_for_the_other():
    """fsdp2_backward's rank 0 alone (rank 1 does 25 ms of extra matmuls per step): it waits that long for rank 1."""
    rank, lag = extra_lag("fsdp2_backward")
    alone = next(f for f in rank_files("fsdp2_backward") if env(f, "RANK") != str(rank))
    findings = report_of([alone]).findings
    assert findings and f"for rank {rank}, which was not given" in findings[0]["message"]
    assert findings[0]["caused_wait_ns_per_step"] / MS == pytest.approx(lag, rel=0.10)


@pytest.mark.parametrize("run_name, left_out", [("fsdp4_data", 0), ("fsdp4_balanced", 1), ("ddp4_balanced", 2)])
def test_a_partial_set_that_holds_its_straggler_or_has_none_says_no_missing_wait(run_name, left_out):
    """Ranks 1-3 of fsdp4_data (the straggler, rank 2, among them) still name rank 2; a balanced run without rank 1
    still names none; neither waits for the rank not given."""
    files = [f for f in rank_files(run_name) if env(f, "RANK") != str(left_out)]
    report = report_of(files)
    assert all(f.get("kind") != "missing_rank" for f in report.findings)
    t = next(iter(truth(run_name).values()))
    assert report.straggler == (t["fault_rank"] if t["fault"] != "none" else None)


def test_one_rank_of_a_balanced_job_says_why_no_straggler_is_named():
    """ddp4_balanced's rank 0 alone: no rank waits long for the three not given (a balanced job, truth: no fault), so
    no missing-rank finding; the one finding says why none is named and how to get one; the set's warning is
    printed once."""
    assert next(iter(truth("ddp4_balanced").values()))["fault"] == "none"
    alone = next(f for f in rank_files("ddp4_balanced") if env(f, "RANK") == "0")
    assert env(alone, "WORLD_SIZE") == "4"
    findings = report_of([alone]).findings
    assert [f["kind"] for f in findings] == ["one_rank"] and "one rank of 4 given" in findings[0]["message"]
    assert "every rank's file" in findings[0]["fix"]
    assert "every rank's file" in run(alone, "--table", "findings", "--format", "csv").stdout
    # on a terminal the warning heads the report once; with stdout elsewhere it is on stderr too
    master, slave = pty.openpty()
    shown = subprocess.run([sys.executable, "-m", "nsys_analytics", "ranks", "--jobs", "1", str(alone)],
                           stdout=slave, stderr=subprocess.PIPE, text=True, timeout=300)
    os.close(slave)
    screen = b""
    while chunk := _read(master):
        screen += chunk
    os.close(master)
    warning = "WORLD_SIZE is 4 but 1 rank was given"
    assert shown.returncode == 0 and screen.decode().count(warning) == 1 and warning not in shown.stderr
    assert warning in run(alone).stderr


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 1 << 16)
    except OSError:  # the terminal's other end is closed: all is read
        return b""


def test_one_process_without_nccl_is_not_a_distributed_job():
    """gpt_train (one process, single GPU): no NCCL kernel (counted with sqlite3), so `ranks` says it is not a
    distributed job and points to diagnose, instead of an empty findings table."""
    profile = PROFILES / "gpt_train.sqlite"
    con = sqlite3.connect(f"file:{profile}?mode=ro", uri=True)
    nccl = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
                       "WHERE s.value LIKE '%nccl%'").fetchone()[0]
    con.close()
    assert nccl == 0
    result = run(profile)
    assert result.exit_code == 0 and "(no rows)" not in result.stdout
    assert "not a distributed job" in result.stdout and "nsys-analytics diagnose" in result.stdout


# -- more ranks than WORLD_SIZE ----------------------------------------------------------------------------------------
def test_more_ranks_than_world_size_is_not_a_partial_set():
    """ddp_whole (both ranks of a launch in one report) with ddp_straggler's two rank files: 4 ranks of a
    WORLD_SIZE of 2 are files of several jobs, not a partial set; no straggler is named across them."""
    files = [*rank_files("ddp_whole"), *rank_files("ddp_straggler")]
    assert {env(f, "WORLD_SIZE") for f in rank_files("ddp_straggler")} == {"2"}
    result = run(*files, "--format", "json")
    assert "WORLD_SIZE is 2 but 4 ranks were given: more ranks than WORLD_SIZE" in result.stderr
    assert "partial set" not in result.output
    doc = json.loads(result.stdout)
    assert any("more ranks than WORLD_SIZE" in n for n in doc["notes"])
    assert [f.get("kind") for f in doc["findings"]] == ["not_one_job"]


# -- the findings table ------------------------------------------------------------------------------------------------
def test_the_findings_table_carries_the_figures_in_json_and_csv_and_the_fix_in_text():
    """fsdp4_data: rank 2 sleeps in `data` (truth); JSON and CSV give the straggler's rank, range, time source,
    excess and each other rank's wait, and the fix, without reading the sentence."""
    rank, lag = data_lag("fsdp4_data")
    files = rank_files("fsdp4_data")
    finding = json.loads(run(*files, "--format", "json").stdout)["findings"][0]
    assert (finding["kind"], finding["rank"], finding["phase"], finding["source"]) == ("straggler", rank, "data", "CPU")
    assert finding["excess_ms_per_step"] == pytest.approx(lag, rel=0.10)
    assert set(finding["waits_ms_per_step"]) == {str(r) for r in range(4) if r != rank}
    assert all(w == pytest.approx(lag, rel=0.10) for w in finding["waits_ms_per_step"].values())
    assert finding["fix"].startswith(f"balance rank {rank}'s `data`")
    row = next(csv.DictReader(io.StringIO(run(*files, "--format", "csv", "--table", "findings").stdout)))
    assert (row["kind"], row["rank"], row["phase"], row["source"]) == ("straggler", str(rank), "data", "CPU")
    assert float(row["excess_ms_per_step"]) == pytest.approx(lag, rel=0.10)
    assert json.loads(row["waits_ms_per_step"]).keys() == finding["waits_ms_per_step"].keys()
    assert f"fix: {finding['fix']}" in run(*files).stdout
