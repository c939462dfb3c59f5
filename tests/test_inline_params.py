"""Values put into the shipped queries (data/sql_files.inline_params) stay values: a name from a profile (an NVTX
range, a kernel) with quotes or line breaks can neither end its literal nor, inside a `--` comment of the query's
header, end the comment and be read as SQL."""

from __future__ import annotations

import shutil
import sqlite3

import duckdb
import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.data.sql_files import inline_params

from .conftest import PROFILES

HOSTILE = ["a'b", "x\rSELECT 1", "x\nSELECT 1", "x\r\n); DROP TABLE t; --", "'; --", "$y", "--"]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_value_in_a_comment_and_a_literal_stays_a_value(value):
    query = inline_params("-- params: $x (the value)\nSELECT $x AS v, '$x' AS kept -- $x\n", {"x": value})
    assert duckdb.execute(query).fetchall() == [(value, "$x")]


def test_a_parameter_without_a_value_is_named():
    with pytest.raises(KeyError, match=r"\$y"):
        inline_params("SELECT $y", {})


def test_diff_over_a_range_named_with_a_line_break(tmp_path):
    """A range named '<script>...</script>\\rstep' once ended the comment of range_instances.sql's header."""
    path = tmp_path / "hostile.sqlite"
    shutil.copy(PROFILES / "gpt_forward.sqlite", path)
    with sqlite3.connect(path) as con:
        (text,) = con.execute("SELECT textId FROM NVTX_EVENTS WHERE textId IS NOT NULL LIMIT 1").fetchone()
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", ("<script>x</script>\rstep", text))
    con.close()
    result = CliRunner().invoke(cli, ["diff", str(path), str(PROFILES / "gpt_forward.sqlite"), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "None vs None" not in result.output
