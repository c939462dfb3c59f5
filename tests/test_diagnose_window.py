"""`diagnose` covers the steady state by default (the step ranges after the warm-up, as `breakdown` and `report`),
says which window, gives no advice to add NVTX ranges to a profile that has them, and says that nothing could be
checked (exit 1) where there is no CUDA data, instead of "No problem found"."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from .conftest import FIXTURE_NAMES, PROFILES, oracle_csv, read_csv
from .test_steady_state import run, steps  # the brute-force step windows, read with sqlite3

TRAIN, FORWARD = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_forward.sqlite"


# -- diagnose -----------------------------------------------------------------------------------------------

def test_diagnose_defaults_to_the_steady_state_and_says_so():
    doc = json.loads(run("diagnose", TRAIN, "--format", "json").stdout)
    windows = steps(TRAIN)
    assert (doc["window"]["from_ns"], doc["window"]["to_ns"]) == (windows[0][0], windows[-1][1])
    assert doc["window"]["kind"] == "steady"
    for finding in doc["findings"]:
        for w in finding["windows"]:
            assert w["end_ns"] > windows[0][0] and w["start_ns"] < windows[-1][1], finding["rule"]
    text = run("diagnose", TRAIN).stdout
    assert "steady state" in text and "--window all" in text


def test_diagnose_window_all_keeps_the_start_up():
    doc = json.loads(run("diagnose", TRAIN, "--format", "json", "--window", "all").stdout)
    assert doc["window"]["kind"] == "all"
    expected = read_csv(oracle_csv(TRAIN, "analyze_gpu_time_util"))
    rows = doc["nsys_rules"]["gpu_time_util"]["rows"]
    assert len(rows) == len(expected) - 1 > 0


@pytest.mark.parametrize("name", [n for n in FIXTURE_NAMES if n != "no_nvtx"])
def test_no_advice_to_add_nvtx_ranges_to_a_profile_that_has_them(name):
    for window in ("steady", "all"):
        doc = json.loads(run("diagnose", PROFILES / f"{name}.sqlite", "--format", "json", "--window",
                             window).stdout)
        assert not [f["fix"] for f in doc["findings"] if "add NVTX" in f["fix"]]


def test_a_profile_without_step_ranges_is_diagnosed_whole_and_says_so():
    doc = json.loads(run("diagnose", PROFILES / "no_nvtx.sqlite", "--format", "json").stdout)
    assert doc["window"]["kind"] == "all"
    assert "whole capture: the profile has no NVTX ranges" in run("diagnose", PROFILES / "no_nvtx.sqlite").stdout


def without_cuda(tmp_path):
    path = tmp_path / "no_cuda.sqlite"
    shutil.copy(FORWARD, path)
    con = sqlite3.connect(path)
    for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'CUPTI%'"
                                ).fetchall():
        con.execute(f'DROP TABLE "{table}"')
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_a_profile_without_cuda_data_says_nothing_could_be_checked(tmp_path, fmt):
    result = run("diagnose", without_cuda(tmp_path), "--format", fmt, code=1)
    assert "No problem found" not in result.output
    assert "nothing could be checked" in result.output.lower() and "--trace=cuda" in result.output


def test_a_window_without_gpu_work_says_nothing_could_be_checked():
    result = run("diagnose", TRAIN, "--start", "100s", code=1)
    assert "nothing could be checked" in result.output.lower()
