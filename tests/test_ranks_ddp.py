"""The 2-GPU DDP fixtures: the straggler verdicts, the waits and NCCL message sizes checked by hand from the raw
tables, and the step detector. (Their combined and per-rank tables against `nsys recipe`: tests/test_ranks_recipes.py.)"""

from __future__ import annotations

import sqlite3

import pytest

from nsys_analytics.data.engine import Sequential
from nsys_analytics.data.profile_set import ProfileSet
from nsys_analytics.capabilities.ranks.sets import ranks_report

from .conftest import PROFILES, RANKS, rank_files

pytestmark = pytest.mark.skipif(not (RANKS / "ddp_straggler").is_dir(), reason="the DDP fixtures are absent")
STRAGGLER = rank_files("ddp_straggler") if (RANKS / "ddp_straggler").is_dir() else ()
BALANCED = rank_files("ddp_balanced") if (RANKS / "ddp_balanced").is_dir() else ()
MS = 1_000_000


@pytest.fixture(scope="module")
def straggler():
    pset = ProfileSet([str(p) for p in STRAGGLER], engine=Sequential())
    return pset, ranks_report(pset)


def test_straggler_is_rank_1_losing_its_time_in_data(straggler):
    pset, report = straggler
    assert pset.ranks == [0, 1] and pset.rank_source == "environment"
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


@pytest.mark.parametrize("run,source", [("ddp_whole", "process order"), ("ddp_whole_json", "NCCL payload")])
def test_one_report_of_the_whole_launch_is_split_and_gives_the_same_verdict(run, source):
    pset = ProfileSet([str(p) for p in rank_files(run)], engine=Sequential())
    assert pset.rank_source == source
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


def session_offset(path, ref) -> int:
    """By hand with sqlite3: what puts `path`'s timestamps on `ref`'s clock. Each nsys session stamps its events
    from its own start, and each file records that start's wall-clock time."""
    def utc(p):
        con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        try:
            return con.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
        finally:
            con.close()
    return utc(path) - utc(ref)


@pytest.mark.parametrize("run", ["ddp_straggler", "ddp_balanced", "fsdp2_forward", "ddp4_data"])
def test_a_collective_ends_together_on_every_rank_once_clocks_are_aligned(run):
    """The k-th NCCL kernel of a name completes on all ranks together (the last rank's arrival releases them all):
    with each file's session start applied, the ends agree within 0.1 ms, where the raw timestamps are off by the
    sessions' start difference (0.7 ms to half a second on these runs)."""
    files = rank_files(run)
    ref = [(e, n) for _s, e, n in _nccl_kernels(files[0])]
    for path in files[1:]:
        off = session_offset(path, files[0])
        mine = [(e, n) for _s, e, n in _nccl_kernels(path)]
        pairs = [(a, b) for (a, na), (b, nb) in zip(ref, mine) if na == nb]
        assert len(pairs) > 40
        gaps = sorted(abs(a - (b + off)) for a, b in pairs)
        assert gaps[len(gaps) // 2] < 100_000
        assert sorted(abs(a - b) for a, b in pairs)[len(pairs) // 2] > 500_000  # raw: not one clock


def test_waits_by_hand_on_the_fixture(straggler):
    """Each AllReduce instance: the k-th kernel of a name on rank 0 against the k-th on rank 1, both on rank 0's
    clock (session_offset); the one that starts first waits (latest start - its start), at most its own
    duration."""
    _, report = straggler
    r0, r1 = (_nccl_kernels(p) for p in STRAGGLER)
    off = {0: 0, 1: session_offset(STRAGGLER[1], STRAGGLER[0])}
    by_name = {}
    for rank, rows in ((0, r0), (1, r1)):
        for start, end, name in rows:
            by_name.setdefault((rank, name), []).append((start + off[rank], end + off[rank]))
    checked = 0
    coll = report.collectives.set_index(["rank", "name", "ordinal"])
    for (rank, name), kernels in by_name.items():
        other = by_name.get((1 - rank, name), [])
        for k, ((s, e), (so, _eo)) in enumerate(zip(kernels, other)):
            expected = min(max(so - s, 0), e - s)
            assert coll.loc[(rank, name, k), "wait_ns"] == expected
            checked += 1
    assert checked >= 10


def _nccl_call_sizes(path) -> list[tuple[int, int, str, int]]:
    """Brute force with sqlite3 and json: (kernel start, kernel end, NCCL call, message size) for each NCCL kernel
    whose launch (the runtime call of its correlation id) lies inside an NCCL-domain range of its thread."""
    import json

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    domain = con.execute("SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'NCCL'").fetchone()[0]
    ranges = con.execute("SELECT start, end, globalTid, coalesce(text, (SELECT value FROM StringIds WHERE id = textId)),"
                         " jsonText FROM NVTX_EVENTS WHERE domainId = ? AND eventType = 59", (domain,)).fetchall()
    kernels = con.execute(
        "SELECT k.start, k.end, r.start, r.globalTid FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
        "JOIN StringIds s ON s.id = k.demangledName WHERE s.value LIKE 'nccl%' ORDER BY k.start").fetchall()
    con.close()
    out = []
    for ks, ke, launch, tid in kernels:
        inside = [r for r in ranges if r[2] == tid and r[0] <= launch < r[1]]
        if inside:
            r = max(inside, key=lambda r: r[0])  # the innermost
            out.append((ks, ke, r[3], json.loads(r[4])["Message size [bytes]"]))
    return out


def test_nccl_bytes_from_the_payloads_of_a_json_export():
    """ddp_straggler_json: each NCCL kernel's `bytes` is the "Message size [bytes]" of the NCCL call that
    launched it (sqlite3 + json brute force). By hand from ddp_train.py's defaults (vocab 8192, d_model 1024,
    d_ff 4096, 6 layers): 8192*1024 (embedding) + 6 * (2*1024 + 1024*4096 + 4096 + 4096*1024 + 1024) + 2*1024
    + 1024*8192 (head) = 67,153,920 parameters = 268,615,680 bytes in fp32: DDP's start-up broadcast carries
    them, and the all-reduces of each of the 8 steps (2 warm-up + 6) carry the gradients, the same bytes; one
    more all-reduce of 4 bytes after the last step is the script's closing dist.barrier() (PyTorch's NCCL
    barrier all-reduces one element)."""
    from nsys_analytics.capabilities.ranks.sets import nccl_frame

    files = rank_files("ddp_straggler_json")
    pset = ProfileSet([str(p) for p in files], engine=Sequential())
    frame = nccl_frame(pset)
    params = 8192 * 1024 + 6 * (2 * 1024 + 1024 * 4096 + 4096 + 4096 * 1024 + 1024) + 2 * 1024 + 1024 * 8192
    assert params * 4 == 268_615_680
    for rank, path in enumerate(files):
        mine = frame[frame["rank"] == rank]
        off = session_offset(path, files[0])
        expected = [(s + off, e + off, call, size) for s, e, call, size in _nccl_call_sizes(path)]
        assert len(expected) == len(mine) == 63
        got = sorted(zip(mine["start_ns"], mine["end_ns"], mine["nvtx_range"], mine["bytes"]))
        assert got == sorted(expected)
        by_op = mine.groupby("op")["bytes"].sum()
        assert by_op["AllReduce"] == 8 * params * 4 + 4
        last_step_end = sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute(
            "SELECT max(end) FROM NVTX_EVENTS WHERE coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) "
            "LIKE 'step_%'").fetchone()[0]
        tiny = mine[mine["bytes"] == 4]
        assert len(tiny) == 1 and tiny["start_ns"].iloc[0] > last_step_end + off
        assert mine.loc[mine["op"] == "Broadcast", "bytes"].max() == params * 4


def test_nccl_bytes_are_unknown_in_a_default_export():
    """A default export (no --include-json) has the NCCL ranges but no payload values: bytes stay NULL."""
    from nsys_analytics.capabilities.ranks.sets import nccl_frame

    frame = nccl_frame(ProfileSet([str(p) for p in STRAGGLER], engine=Sequential()))
    assert len(frame) == 126 and frame["nvtx_range"].notna().all() and frame["bytes"].isna().all()


def _steps_by_hand(path):
    """sqlite3: the step_N ranges (start, end, name), the warmup range, and each NCCL kernel's start and launch."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    text = "coalesce(text, (SELECT value FROM StringIds WHERE id = textId))"
    steps = con.execute(f"SELECT start, end, {text} FROM NVTX_EVENTS WHERE {text} LIKE 'step\\_%' ESCAPE '\\' "
                        "ORDER BY start").fetchall()
    warmup = con.execute(f"SELECT start, end FROM NVTX_EVENTS WHERE {text} = 'warmup'").fetchone()
    nccl = con.execute("SELECT k.start, r.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                       "k.demangledName JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                       "WHERE s.value LIKE 'nccl%' ORDER BY k.start").fetchall()
    con.close()
    return steps, warmup, nccl


@pytest.mark.parametrize("run", ["ddp_straggler", "ddp_balanced"])
def test_step_detector_on_the_real_ddp_runs(run):
    """Each rank of the real 2-GPU runs: the NVTX steps are the file's step_N ranges, none of them warm-up: the
    workload runs its warm-up steps inside its `warmup` range (nvtx/steady.py's rule; ddp_train.py: step_N are the
    measured steps); and without them, the repetition of the NCCL kernels finds the same steps:
    one window per step starting at the step's first NCCL kernel, as many kernels per window as the step
    launched, and one more window inside the `warmup` range (the second warm-up step), flagged warm-up."""
    from nsys_analytics.capabilities.nvtx import steady
    from nsys_analytics.capabilities.ranks import data

    files = rank_files(run)
    pset = ProfileSet([str(p) for p in files], engine=Sequential())
    for member in pset.members:
        steps, warmup, nccl = _steps_by_hand(member.path)
        assert len(steps) == 6 and warmup is not None
        t = data.step_timeline(member)["steps"]
        off = session_offset(member.path, files[0])  # step_timeline is on the set's clock (rank 0's)
        assert list(zip(t["start_ns"] - off, t["end_ns"] - off, t["name"])) == steps
        assert list(t["warm"]) == [False] * 6
        with member.open() as p:
            rep = data.repetition_steps(data._nccl(p))
            warm = steady.warm_flags(p, list(rep["start_ns"]), 0)
        starts = [k for k, _launch in nccl]
        first = [min(k for k in starts if k >= s) for s, _e, _n in steps]
        assert list(rep["start_ns"])[1:] == first
        assert warmup[0] <= rep["start_ns"].iloc[0] < warmup[1] and warm == [True] + [False] * 6
        per_step = [sum(1 for _k, launch in nccl if s <= launch < e) for s, e, _n in steps]
        between = [sum(1 for k in starts if a <= k < b) for a, b in zip(rep["start_ns"], rep["end_ns"])]
        assert between[1:-1] == per_step[:-1] and len(set(per_step)) == 1 and per_step[0] >= 2


def test_straggler_found_from_detected_steps_without_nvtx_step_ranges(tmp_path):
    """The straggler run with its step_N ranges deleted (copies): the steps come from the repetition of the NCCL
    kernels, and the verdict is the same: rank 1, in `data`."""
    import shutil

    paths = []
    for p in STRAGGLER:
        copy = tmp_path / p.name
        shutil.copy(p, copy)
        con = sqlite3.connect(copy)
        con.execute("DELETE FROM NVTX_EVENTS WHERE coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) "
                    "LIKE 'step\\_%' ESCAPE '\\'")
        con.commit()
        con.close()
        paths.append(str(copy))
    report = ranks_report(ProfileSet(paths, engine=Sequential()))
    assert set(report.steps["name"]) == {f"rep_{k}" for k in range(7)}
    assert report.straggler == 1 and report.findings[0]["phase"] == "data"
    assert report.findings[0]["excess_ns_per_step"] > 20 * MS


def test_diagnose_over_the_ranks_puts_the_straggler_first_and_start_up_out():
    """diagnose over the straggler run: the cross-rank section comes first and names rank 1 in `data`; each rank
    is diagnosed over the same steady state as the ranks table (steps 0-5: the measured steps, after the warmup
    range), so NCCL's set-up (ncclCommInitRankConfig) and the warm-up, which lead a whole-capture diagnose of the
    same file with ~5 s of start-up idle, are in no finding."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "nsys_analytics", "diagnose", *map(str, STRAGGLER), "--jobs", "1",
                          "--format", "json"], capture_output=True, text=True, check=True)
    sections = json.loads(out.stdout)
    assert [s["rank"] for s in sections] == ["all", 0, 1]
    first = sections[0]["output"]["findings"][0]
    assert first["severity"] == "error" and first["message"].startswith("rank 1 is the straggler: it loses the time in `data`")
    for section, path in zip(sections[1:], STRAGGLER):
        steps, warmup, _nccl = _steps_by_hand(path)
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        init_end = con.execute("SELECT max(end) FROM NVTX_EVENTS WHERE coalesce(text, (SELECT value FROM StringIds "
                               "WHERE id = textId)) = 'ncclCommInitRankConfig'").fetchone()[0]
        con.close()
        report = section["output"]
        assert report["window"]["kind"] == "steady"
        assert report["window"]["from_ns"] == steps[0][0] > warmup[1] > init_end
        assert report["window"]["to_ns"] == steps[-1][1]
        assert report["findings"]
        for f in report["findings"]:
            assert all(w["start_ns"] >= steps[0][0] for w in f["windows"])
            assert not any(r.startswith("NCCL:ncclCommInit") or r == ":warmup" for r in f.get("ranges", []))
    whole = subprocess.run([sys.executable, "-m", "nsys_analytics", "diagnose", str(STRAGGLER[0]), "--window", "all",
                            "--format", "json"], capture_output=True, text=True, check=True)
    top = json.loads(whole.stdout)["findings"][0]
    first_step = _steps_by_hand(STRAGGLER[0])[0][0][0]
    assert top["at_stake_ns"] > 4_000_000_000 and top["windows"][0]["start_ns"] < first_step


def test_diagnose_over_the_ranks_gives_the_stragglers_fix_in_text_and_csv():
    """The cross-rank finding carries its fix as every finding does: a `fix:` line under it in text, the Fix cell of
    its `all` row in CSV (both left it out; `ranks` showed it)."""
    import csv
    import io
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "nsys_analytics", "diagnose", *map(str, STRAGGLER), "--jobs", "1",
                               *args], capture_output=True, text=True, check=True).stdout

    fix = "balance rank 1's `data` (e.g. more data-loader workers, pinned memory, prefetch)"
    cross = run().split("== rank 0")[0]
    assert "[error] rank 1 is the straggler" in cross and "\n  fix: balance rank 1" in cross
    assert f"fix: {fix}" in " ".join(cross.split())  # wrapped to the terminal
    first = next(csv.DictReader(io.StringIO(run("--format", "csv"))))
    assert (first["Rank"], first["Rule"], first["Fix"]) == ("all", "ranks", fix)


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_diagnose_fail_on_counts_the_cross_rank_straggler(fmt):
    """fsdp2_forward's designed fault (truth.0.json: rank 0's block_2 mlp 30.45 ms against 5.74 ms) is a warning
    across ranks and no rank's own finding reaches one; `--fail-on warning` exited 0 on it (only the ranks' own
    findings counted). The balanced run of the same workload still passes."""
    import subprocess
    import sys

    def code(run: str, fail_on: str) -> int:
        return subprocess.run([sys.executable, "-m", "nsys_analytics", "diagnose", *map(str, rank_files(run)),
                               "--jobs", "1", "--fail-on", fail_on, "--format", fmt], capture_output=True).returncode

    assert code("fsdp2_forward", "warning") == 4
    assert code("fsdp2_forward", "error") == 0
    assert code("fsdp2_balanced", "warning") == 0


@pytest.mark.parametrize("command", [["diagnose"], ["breakdown"]])
def test_one_rank_file_of_a_larger_job_says_so(command):
    """ddp_straggler.0.sqlite ran with WORLD_SIZE=2 (its environment in META_DATA_CAPTURE): alone, `diagnose` showed
    its NCCL kernels (waiting for rank 1's designed data-loading delay) with no word that another rank exists. A
    note on stderr says so and names `ranks`; over both files, and on a one-process profile, no such note."""
    import subprocess
    import sys

    def stderr(*paths) -> str:
        jobs = ["--jobs", "1"] if command == ["diagnose"] and len(paths) > 1 else []
        out = subprocess.run([sys.executable, "-m", "nsys_analytics", *command, *map(str, paths), *jobs],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stderr

    con = sqlite3.connect(f"file:{STRAGGLER[0]}?mode=ro", uri=True)
    world = [v for (v,) in con.execute("SELECT value FROM META_DATA_CAPTURE WHERE value LIKE 'WORLD_SIZE=%'")]
    con.close()
    assert world == ['WORLD_SIZE="2"']
    assert "This file is rank 0 of a job of 2 ranks (WORLD_SIZE)" in stderr(STRAGGLER[0])
    assert "`nsys-analytics ranks`" in stderr(STRAGGLER[0])
    assert "This file is" not in stderr(*STRAGGLER)
    assert "This file is" not in stderr(PROFILES / "gpt_train.sqlite")


@pytest.mark.parametrize("command", [["diagnose"], ["breakdown"]])
def test_a_report_of_a_whole_launch_read_as_one_profile_says_so(command):
    """ddp_whole holds both processes of a 2-rank launch of ddp_straggler's workload. Read as one profile, `diagnose`
    listed per-process findings and never named rank 1, the designed straggler, which `--by-rank` names first. A
    note on stderr says the report holds 2 processes with kernels and names `--by-rank` and `ranks`; with
    `--by-rank`, and on a one-process profile, no such note."""
    import subprocess
    import sys

    [whole] = rank_files("ddp_whole")

    def run(*args) -> subprocess.CompletedProcess:
        out = subprocess.run([sys.executable, "-m", "nsys_analytics", *command, *map(str, args)],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out

    alone = run(whole).stderr
    assert "This report holds 2 processes that ran kernels" in alone and "`nsys-analytics ranks`" in alone, alone
    if command == ["diagnose"]:  # breakdown has no --by-rank: it is not named there
        assert "`diagnose --by-rank`" in alone, alone
        split = run("--by-rank", whole)
        assert "This report holds" not in split.stderr
        assert "rank 1 is the straggler" in split.stdout, split.stdout
    else:
        assert "--by-rank" not in alone, alone
    assert "This report holds" not in run(PROFILES / "gpt_train.sqlite").stderr


def test_nccl_on_a_profile_without_nccl_says_so_in_one_sentence():
    """gpt_train ran on one GPU: no NCCL ranges, no NCCL kernels. The notes said GPU time of NCCL kernels was shown
    "instead", then how its statistics are computed, then that there are no NCCL kernels; now one sentence."""
    from click.testing import CliRunner

    from nsys_analytics.cli.main import cli

    out = CliRunner().invoke(cli, ["nccl", str(PROFILES / "gpt_train.sqlite")]).stdout
    notes = [x for x in out.splitlines() if x and x not in ("All ranks", "Per rank", "(no rows)")]
    assert notes == ["No NCCL activity: no NCCL NVTX ranges (domain `NCCL`) and no NCCL kernels "
                     "(ncclDevKernel_* / ncclKernel_*) in these profiles; a run on one GPU has none."]
