"""Kernel, range and file names are anyone's strings (issue #12, item 6): human formats (table, markdown, text)
show control characters as escapes; CSV and JSON keep the exact bytes."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES

HOSTILE = "\x1b]0;owned\x07\x1b[2J\rgemm\u202e"  # retitle the terminal, ring, clear the screen, reorder
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def hostile_profile(tmp_path_factory):
    """A real profile whose heaviest kernel and one NVTX range are named with terminal control sequences."""
    path = tmp_path_factory.mktemp("hostile") / "hostile.sqlite"
    shutil.copy(PROFILES / "gpt_forward.sqlite", path)
    with sqlite3.connect(path) as con:
        (kernel_name,) = con.execute("SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1 "
                                     "ORDER BY sum(end - start) DESC LIMIT 1").fetchone()
        (range_name,) = con.execute("SELECT textId FROM NVTX_EVENTS WHERE textId IS NOT NULL LIMIT 1").fetchone()
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", (HOSTILE, kernel_name))
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", ("range" + HOSTILE, range_name))
    con.close()
    return path


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


HUMAN = [
    ["kernels", "{P}"], ["kernels", "{P}", "--format", "markdown"], ["kernels", "{P}", "--name", "short"],
    ["nvtx", "{P}"], ["nvtx-kernels", "{P}", "--format", "markdown"], ["nvtx-gpu", "{P}"],
    ["classify", "{P}"], ["breakdown", "{P}"], ["breakdown", "{P}", "--format", "markdown"],
    ["diagnose", "{P}"], ["info", "{P}"], ["sql", "{P}", "SELECT name FROM kernels"],
    ["report", "--forward", "{P}"],
]


@pytest.mark.parametrize("args", HUMAN, ids=[" ".join(a[:1] + a[2:]) for a in HUMAN])
def test_human_formats_escape_control_characters(hostile_profile, args):
    out = run(*[a.format(P=hostile_profile) for a in args])
    assert not CONTROL.findall(out), CONTROL.findall(out)


def test_the_escaped_name_is_shown(hostile_profile):
    out = run("kernels", hostile_profile)
    assert "\\x1b]0;owned\\x07\\x1b[2J\\x0dgemm\\u202e" in out
    assert "\\x1b]0;owned\\x07" in out


def test_csv_and_json_keep_the_exact_name(hostile_profile):
    rows = list(csv.reader(io.StringIO(run("kernels", hostile_profile, "--format", "csv"))))
    assert rows[1][-1] == HOSTILE
    records = json.loads(run("kernels", hostile_profile, "--format", "json"))
    assert records[0]["name"] == HOSTILE


def test_error_messages_escape_what_they_echo(hostile_profile, tmp_path):
    result = CliRunner().invoke(cli, ["kernels", str(hostile_profile), "--range", "no\x1b[31mpe"])
    assert result.exit_code == 2
    assert not CONTROL.findall(result.output) and "no\\x1b[31mpe" in result.output
    assert "range\\x1b]0;owned" in result.output  # the profile's own range names, listed in the message
    missing = tmp_path / "x\x1bq\x07.sqlite"
    result = CliRunner().invoke(cli, ["info", str(missing)])
    assert result.exit_code == 1 and not CONTROL.findall(result.output)
