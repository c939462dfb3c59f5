"""`diagnose` remembered per file (capabilities/diagnose/memo.py): a second run with the same options prints what a
run without the cache prints, in every format, with the same notes and exit code, without running the rules again;
other options, or a changed file, run them again."""

from __future__ import annotations

import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from nsys_analytics.capabilities.diagnose import report
from nsys_analytics.cli.main import cli

from .conftest import PROFILES
from .test_cache import cached  # noqa: F401 - the fixture: caching on, in a fresh folder


@pytest.fixture
def runs(monkeypatch):
    """The times the rules ran (report._diagnose called)."""
    counted = []
    real = report._diagnose

    def counting(*args):
        counted.append(args[1:])
        return real(*args)

    monkeypatch.setattr(report, "_diagnose", counting)
    return counted


def diagnose(*args, cache: bool = True):
    """(exit code, stdout, stderr) of `diagnose ARGS`; not `cache`: as --no-cache does, but for this call only (the
    flag turns the cache off for the rest of the process)."""
    env = {} if cache else {"NSYS_ANALYTICS_NO_CACHE": "1"}
    result = CliRunner().invoke(cli, ["diagnose", *map(str, args)], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def profile(tmp_path):
    """A copy of gpt_train with one kernel row that ends before it starts: every read notes it on stderr."""
    path = tmp_path / "run.sqlite"
    shutil.copyfile(PROFILES / "gpt_train.sqlite", path)
    with sqlite3.connect(path) as con:
        con.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 1000 WHERE rowid = 7')
    con.close()
    return path


@pytest.mark.parametrize("options", [["--format", "table"], ["--format", "json", "--fail-on", "warning"],
                                     ["--format", "csv", "--table", "gpu_gaps"], ["--format", "markdown", "--window",
                                                                                  "all", "--gap", "1"]])
def test_a_second_diagnose_prints_what_a_direct_one_does_without_running_the_rules(cached, runs, profile, options):
    direct = diagnose(profile, *options, cache=False)
    assert len(runs) == 1 and "SKIPPED 1 kernel row" in direct[2]
    assert diagnose(profile, *options) == direct
    assert len(runs) == 2 and len(list((cached / "summaries").glob("*.diagnose"))) == 1
    assert diagnose(profile, *options) == direct  # recalled: the notes and the exit code as the reading gave them
    assert len(runs) == 2


def test_other_options_or_a_changed_file_run_the_rules_again(cached, runs, profile):
    first = diagnose(profile, "--format", "json")
    diagnose(profile, "--format", "table")  # another format of the same report: recalled
    assert len(runs) == 1
    assert diagnose(profile, "--format", "json", "--short-kernel", "3") != first
    diagnose(profile, "--format", "json", "--rule", "gpu_gaps")
    assert len(runs) == 3
    with sqlite3.connect(profile) as con:  # one kernel fewer
        con.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 8")
    con.close()
    again = diagnose(profile, "--format", "json")
    assert len(runs) == 4
    assert again == diagnose(profile, "--format", "json", cache=False)


def test_a_damaged_memo_is_computed_again(cached, runs, profile):
    expected = diagnose(profile, "--format", "json")
    (memo,) = (cached / "summaries").glob("*.diagnose")
    for damage in ("", "{not json", '{"result": 1, "notes": []}', '{"result": {"outcomes": [{"rule": "nope"}]}}',
                   memo.read_text()[: len(memo.read_text()) // 2]):
        memo.write_text(damage)
        assert diagnose(profile, "--format", "json") == expected
    assert len(runs) == 6


def test_read_directly_diagnose_joins_the_operations_to_their_launches_once(cached, profile, monkeypatch):
    """Without the cache, _range_ops (every GPU operation joined to its launching call) is a view over the export
    that gpu_starved and launch_bound each computed again; diagnose now holds it in a table once, which the view
    reads: the same rows (and, above, the same output as the cached run's). With the cache it is stored, and nothing
    is held."""
    from nsys_analytics.data.cache import folder
    from nsys_analytics.data.profile import Profile

    def held_tables(p) -> list[str]:
        query = "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE '%held'"
        return [t for (t,) in p.con.execute(query).fetchall()]

    monkeypatch.setattr(folder, "_disabled", True)
    with Profile(profile) as p:
        joined = p.sql("SELECT count(*), sum(launch_start_ns), sum(duration_ns) FROM _range_ops").rows
        p.hold("_range_ops")
        p.hold("_range_ops")  # once
        assert held_tables(p) == ["_range_ops__held"]
        assert p.sql("SELECT count(*), sum(launch_start_ns), sum(duration_ns) FROM _range_ops").rows == joined
        assert p.sql("SELECT count(*) FROM _range_ops__held").rows == [(joined[0][0],)]
    monkeypatch.setattr(folder, "_disabled", False)
    with Profile(profile) as p:
        p.hold("_range_ops")
        assert held_tables(p) == [] and p.stores("_range_ops")
