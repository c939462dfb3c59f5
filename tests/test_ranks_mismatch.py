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
