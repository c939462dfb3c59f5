"""A profile's summary remembered in the cache folder (diff/memo.py)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from nsys_analytics.capabilities.categories import load_rules
from nsys_analytics.capabilities.diff import data
from nsys_analytics.capabilities.diff.summary import ProfileSummary

from .conftest import PROFILES
from .test_catalog import _stored

TRAIN, FORWARD = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_forward.sqlite"


@pytest.fixture
def computed(monkeypatch):
    """The files `diff.data.summarize` read, in order: what was computed rather than read back."""
    seen: list[str] = []
    summarize = data.summarize

    def counting(profile, *args, **kwargs):
        seen.append(Path(profile.path).name)
        return summarize(profile, *args, **kwargs)

    monkeypatch.setattr(data, "summarize", counting)
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")  # the fixtures are small
    return seen


def _memos(cache_folder: Path) -> list[Path]:
    return sorted((cache_folder / "summaries").glob("*.json"))


@pytest.mark.parametrize("attribution", ["none", "process", "thread", "gpu"])
def test_a_summary_round_trips_through_its_json(attribution):
    from nsys_analytics.data.profile import Profile

    with Profile(TRAIN) as p:
        summary = data.summarize(p, load_rules(), 0, attribution, with_hash=True)
    assert summary.kernels and summary.ranges and (summary.range_kernels or attribution == "none")
    again = ProfileSummary.from_json(json.loads(json.dumps(summary.to_json())))
    assert again == summary


def test_a_summary_is_read_back_until_the_file_or_the_question_changes(computed, cache_folder, tmp_path):
    profile = tmp_path / "run.sqlite"
    shutil.copy(TRAIN, profile)
    rules = load_rules()
    first = data.summarize_file(profile, rules, 0, "process", with_hash=False)
    assert computed == ["run.sqlite"] and len(_memos(cache_folder)) == 1
    again = data.summarize_file(str(profile), rules, 3, "process", with_hash=True)
    assert computed == ["run.sqlite"]  # read back
    assert again.rank == 3 and again.label == "run" and again.path == str(profile)
    assert again.file_hash == hashlib.sha256(profile.read_bytes()).hexdigest()
    again.rank, again.file_hash = first.rank, None
    assert again == first
    data.summarize_file(profile, rules, 0, "none", with_hash=False)  # another attribution
    assert computed == ["run.sqlite"] * 2
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text('[[rule]]\nname = "mine"\ncategory = "matmul"\npattern = "elementwise"\n')
    mine = data.summarize_file(profile, load_rules([str(rules_file)]), 0, "process", with_hash=False)
    assert computed == ["run.sqlite"] * 3  # other category rules
    assert {k.category for k in mine.kernels if "elementwise" in k.name} == {"matmul"}
    os.utime(profile, ns=(1, 1))  # the file touched, its bytes unchanged: the same identity, read back
    data.summarize_file(profile, rules, 0, "process", with_hash=False)
    assert computed == ["run.sqlite"] * 3
    st = profile.stat()
    with sqlite3.connect(profile) as con:  # a kernel's end changed in place, size and mtime put back
        con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = end + 1000 WHERE rowid = 1")
    con.close()
    os.utime(profile, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert profile.stat().st_size == st.st_size
    data.summarize_file(profile, rules, 0, "process", with_hash=False)
    assert computed == ["run.sqlite"] * 4


def test_a_damaged_memo_is_computed_again_and_a_small_profile_or_no_cache_leaves_none(computed, cache_folder,
                                                                                      monkeypatch):
    rules = load_rules()
    expected = data.summarize_file(FORWARD, rules, 0, "none", with_hash=False)
    (memo,) = _memos(cache_folder)
    for damage in ("", "{not json", '{"path": 1}', json.dumps([1, 2]), memo.read_text()[:1000]):
        memo.write_text(damage)
        assert data.summarize_file(FORWARD, rules, 0, "none", with_hash=False) == expected
    assert len(computed) == 6
    shutil.rmtree(cache_folder / "summaries")
    monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1")
    data.summarize_file(FORWARD, rules, 0, "none", with_hash=False)
    monkeypatch.delenv("NSYS_ANALYTICS_NO_CACHE")
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", str(FORWARD.stat().st_size + 1))
    data.summarize_file(FORWARD, rules, 0, "none", with_hash=False)
    assert len(computed) == 8 and not (cache_folder / "summaries").exists()


def test_a_summary_over_the_size_bound_is_not_remembered(computed, cache_folder, monkeypatch):
    from nsys_analytics.capabilities.diff import memo

    monkeypatch.setattr(memo, "MAX_BYTES", 10_000)  # gpt_forward's summary: about 40 KB
    for _ in range(2):
        data.summarize_file(FORWARD, load_rules(), 0, "none", with_hash=False)
    assert len(computed) == 2 and _memos(cache_folder) == []


def test_auto_attribution_is_remembered_with_its_threshold(computed, monkeypatch):
    rules = load_rules()
    full = data.summarize_file(FORWARD, rules, 0, "auto", with_hash=False)
    assert full.attribution == "process"
    monkeypatch.setattr(data, "AUTO_MAX_KERNELS", 1000)  # gpt_forward has 1,227 kernels
    skipped = data.summarize_file(FORWARD, rules, 0, "auto", with_hash=False)
    assert skipped.attribution is None and skipped.meta["attribution_skipped_kernels"] == 1227
    assert len(computed) == 2


def test_runs_add_and_diff_from_remembered_summaries_equal_fresh_ones(computed, cache_folder, tmp_path):
    from click.testing import CliRunner

    from nsys_analytics.cli.main import cli

    def run(*args, cache: bool = True):
        env = {} if cache else {"NSYS_ANALYTICS_NO_CACHE": "1"}
        result = CliRunner().invoke(cli, list(map(str, args)), env=env)
        assert result.exit_code == 0, result.output
        return result.output

    fresh = run("diff", TRAIN, FORWARD, "--format", "json", cache=False)
    assert sorted(computed) == ["gpt_forward.sqlite", "gpt_train.sqlite"]
    for _ in range(2):
        assert run("diff", TRAIN, FORWARD, "--format", "json") == fresh
    assert len(computed) == 4 and len(_memos(cache_folder)) == 2
    stored = {}
    # runs add: the whole capture without attribution (another summary than diff's), and the steady state as diff
    # computes it (remembered from the diffs above)
    for name, count in (("fresh", 6), ("first", 7), ("remembered", 7)):  # the remembered add computed nothing
        db = str(tmp_path / f"{name}.db")
        run("runs", "add", TRAIN, "--db", db, cache=name != "fresh")
        assert len(computed) == count
        stored[name] = _stored(db)
    assert len(stored["fresh"]["kernel_stats"]) > 50 and stored["remembered"] == stored["fresh"]


def test_cache_clear_forgets_the_summaries_of_its_profile(computed, cache_folder, tmp_path):
    from click.testing import CliRunner

    from nsys_analytics.cli.main import cli

    copy = tmp_path / "copy.sqlite"
    shutil.copy(FORWARD, copy)
    for path in (FORWARD, copy):
        data.summarize_file(path, load_rules(), 0, "none", with_hash=False)
    assert [m.name.split("-")[0] for m in _memos(cache_folder)] == ["copy", "gpt_forward"]
    assert CliRunner().invoke(cli, ["cache", "clear", str(copy)]).exit_code == 0
    assert [m.name.split("-")[0] for m in _memos(cache_folder)] == ["gpt_forward"]
    assert CliRunner().invoke(cli, ["cache", "clear"]).exit_code == 0
    assert _memos(cache_folder) == []
    data.summarize_file(FORWARD, load_rules(), 0, "none", with_hash=False)
    assert len(computed) == 3
