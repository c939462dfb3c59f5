"""`runs add`'s catalog process forked at the executable's start (cli/launch.py, catalog/writer.fork_early)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from nsys_analytics.cli.launch import adds_runs

from .conftest import PROFILES

FORWARD = PROFILES / "gpt_forward.sqlite"


@pytest.mark.parametrize("args, expected", [
    (["runs", "add", "a.sqlite"], True),
    (["--debug", "runs", "add", "--tag", "k=v", "a.sqlite", "b.sqlite"], True),
    (["runs", "add"], False),
    (["runs", "add", "a.sqlite", "--help"], False),
    (["runs", "list"], False),
    (["kernels", "runs", "add"], False),
    ([], False),
])
def test_which_command_lines_fork_early(args, expected):
    assert adds_runs(args) is expected


def test_a_writer_takes_over_the_early_process(tmp_path):
    """In a fresh interpreter (as the executable): fork_early before anything is imported, a CatalogWriter takes
    that process over, and a run added through it is stored; a second writer forks its own."""
    script = textwrap.dedent(f"""
        import sys
        from nsys_analytics.capabilities.catalog import writer
        writer.fork_early()
        early = writer._early[0]
        assert sys.modules.keys().isdisjoint(("sqlalchemy", "duckdb", "_duckdb"))
        from nsys_analytics.capabilities.catalog.add import summarize_run
        from nsys_analytics.capabilities.categories import load_rules
        summaries, _ = summarize_run([{str(FORWARD)!r}], load_rules())
        with writer.CatalogWriter({str(tmp_path / "runs.db")!r}, fork=True) as w:
            assert writer._early is None and w._pid == early
            print(w.add(summaries, {{"k": "v"}}))
        with writer.CatalogWriter({str(tmp_path / "runs.db")!r}, fork=True) as w:  # DuckDB loaded: a thread
            assert w._pid is None
            print(w.add(summaries, {{}}))
    """)
    result = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["(1, True)", "(1, False)"]


def test_an_early_process_nobody_takes_over_ends_with_the_command(tmp_path):
    """A usage error of `runs add`: the command ends with its message; the catalog process forked at the start
    writes nothing and makes no catalog."""
    db = tmp_path / "runs.db"
    result = subprocess.run([sys.executable, "-m", "nsys_analytics", "runs", "add", "--bogus", "x.sqlite",
                             "--db", str(db)], check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "No such option '--bogus'" in result.stderr and result.stdout == ""
    assert not db.exists()
