"""`sql` reads one profile: given several (and a query), it says how to query them together in one line (exit 2), and
a query left unquoted is named as such."""

from __future__ import annotations

from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES

RANKS = sorted(str(p) for p in (FIXTURES / "ranks" / "ddp_straggler").glob("*.sqlite"))


def run(*args):
    return CliRunner().invoke(cli, ["sql", *args])


def test_two_profiles_and_a_query_say_attach_in_one_line():
    """(`sql A B` alone took B for the query and said so; with a query after them click refused B as an extra
    argument.)"""
    result = run(*RANKS, "SELECT count(*) FROM kernels")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "is a profile, not a query" in result.output
    assert f"-a b={RANKS[1]}" in result.output, result.output


def test_an_unquoted_query_is_named():
    result = run(RANKS[0], "SELECT", "count(*)", "FROM", "kernels")
    assert result.exit_code == 2 and "in quotes: 'SELECT count(*) FROM kernels'" in result.output


def test_a_query_longer_than_a_file_name_runs():
    """(A query of more than 255 characters was looked up as a folder, and the OS's refusal came out as an internal
    error.)"""
    padding = " ".join(f"{i} AS c{i}," for i in range(60))
    query = f"SELECT {padding} count(*) AS n FROM kernels"
    assert len(query) > 255
    result = run(RANKS[0], "--format", "csv", query)
    assert result.exit_code == 0, result.output
    import sqlite3

    n = sqlite3.connect(RANKS[0]).execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    assert result.output.splitlines()[1].endswith(f",{n}")


def test_the_attached_profile_answers_beside_the_first():
    result = run(RANKS[0], "-a", f"r1={RANKS[1]}", "--format", "csv",
                 "SELECT (SELECT count(*) FROM kernels) AS a, (SELECT count(*) FROM r1.kernels) AS b")
    assert result.exit_code == 0, result.output
    import sqlite3

    counts = [sqlite3.connect(p).execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0] for p in RANKS]
    assert result.output.splitlines()[1] == f"{counts[0]},{counts[1]}"
