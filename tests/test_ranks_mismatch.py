"""`ranks` over files that may not be one job's ranks: a warning on stderr, a one-line refusal with --strict."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import rank_files


def env(path, var) -> str:
    """By hand: the variable in the environment nsys recorded for the profiled process."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for (text,) in con.execute("SELECT value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_%:ENVIRONMENT_VARIABLE'"):
            if text.startswith(f"{var}="):
                return text.split("=", 1)[1].strip('"')
    finally:
        con.close()
    return ""


def run(*args):
    return CliRunner().invoke(cli, ["ranks", *map(str, args)])


def test_files_of_two_launches_warn_and_strict_refuses():
    a, b = rank_files("ddp_straggler")[0], rank_files("fsdp2_forward")[1]
    assert env(a, "TORCHELASTIC_RUN_ID") != env(b, "TORCHELASTIC_RUN_ID")
    warned = run(a, b)
    assert warned.exit_code == 0
    assert "2 different launches (TORCHELASTIC_RUN_ID)" in warned.stderr and "not the ranks of one job" in warned.stderr
    refused = run(a, b, "--strict")
    assert refused.exit_code == 1 and refused.stdout == ""
    assert len(refused.stderr.strip().splitlines()) == 1 and "different launches" in refused.stderr


def test_a_partial_set_is_named_and_a_whole_run_is_not():
    files = rank_files("fsdp4_data")
    assert {env(f, "WORLD_SIZE") for f in files} == {"4"}
    whole = run(*files)
    assert whole.exit_code == 0 and "warning" not in whole.stderr
    part = run(*files[:2])
    assert part.exit_code == 0 and "WORLD_SIZE is 4 but 2 ranks were given: a partial set" in part.stderr
    assert run(*files[:2], "--strict").exit_code == 1


def test_one_rank_alone_is_a_partial_set_with_its_own_nccl_time_per_range():
    """One file of a 2-rank job: named a partial set, and its ranges' NCCL time is the one the whole job gives that
    rank (there was none: collectives were matched only across two or more ranks); no other rank to wait for."""
    files = rank_files("fsdp2_forward")
    assert env(files[1], "WORLD_SIZE") == "2"
    alone = run(files[1], "--format", "json")
    assert alone.exit_code == 0 and "WORLD_SIZE is 2 but 1 rank was given: a partial set" in alone.stderr
    whole = run(*files, "--format", "json")

    def nccl(result, rank):
        phases = json.loads(result.stdout)["phases"]
        return {p["phase"]: p["nccl_ms"] for p in phases if p["rank"] == rank}

    one, both = nccl(alone, 1), nccl(whole, 1)
    assert one["backward"] > 0 and one == {phase: both[phase] for phase in one}  # the whole job names one more path
    assert all(p["wait_ms"] == 0 for p in json.loads(alone.stdout)["phases"])


def _moved_session(src, dst, minutes: float, drop_launch_id: bool = False):
    """A copy of a rank file whose session started `minutes` later (TARGET_INFO_SESSION_START_TIME), and without
    its launch id where `drop_launch_id`."""
    import shutil

    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    con.execute("UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = utcEpochNs + ?", (int(minutes * 60e9),))
    if drop_launch_id:
        con.execute("DELETE FROM META_DATA_CAPTURE WHERE value LIKE 'TORCHELASTIC_RUN_ID=%'")
    con.commit()
    con.close()
    return dst


def test_sessions_far_apart_only_warn_where_one_launch_id_says_one_job(tmp_path):
    """Two ranks of one torchrun launch (one TORCHELASTIC_RUN_ID) whose sessions started 10 minutes apart: a
    warning, not "not one job" (the launch id says one job); the same files without their launch ids are files
    of several jobs, and no straggler is named across them."""
    first, second = rank_files("fsdp2_aa_1")
    assert env(first, "TORCHELASTIC_RUN_ID") == env(second, "TORCHELASTIC_RUN_ID") != ""
    one = tmp_path / "one"
    one.mkdir()
    (one / first.name).symlink_to(first)
    _moved_session(second, one / second.name, 10)
    result = run(one, "--jobs", "1", "--format", "json")
    assert result.exit_code == 0 and "the sessions started 10.0 minutes apart" in result.stderr, result.output
    assert "not_one_job" not in [f.get("kind") for f in json.loads(result.stdout)["findings"]]
    apart = tmp_path / "apart"
    apart.mkdir()
    _moved_session(first, apart / first.name, 0, drop_launch_id=True)
    _moved_session(second, apart / second.name, 10, drop_launch_id=True)
    assert env(apart / second.name, "TORCHELASTIC_RUN_ID") == ""
    doc = json.loads(run(apart, "--jobs", "1", "--format", "json").stdout)
    assert [f.get("kind") for f in doc["findings"]] == ["not_one_job"]
    assert "the sessions started 10.0 minutes apart" in doc["findings"][0]["message"]
