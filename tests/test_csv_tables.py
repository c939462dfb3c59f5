"""`--format csv` writes exactly one rectangular table for every command (`--table NAME` picks one where a command
has several), read back with both the csv module and pandas; JSON keeps every section."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, PROFILES

TRAIN, FORWARD = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_forward.sqlite"
SHAPE = ["--batch", "4", "--seq-len", "256", "--d-model", "256", "--heads", "4"]
REPORT = ["report", "--forward", FORWARD, "--train", TRAIN, "--timeit", FIXTURES / "timeit" / "gpt_forward.csv",
          *SHAPE]

# command -> (arguments, {table name: rows expected from the JSON of the same command}); None: one table only.
SINGLE = {
    "info": ["info", TRAIN],
    "kernels": ["kernels", TRAIN],
    "nvtx": ["nvtx", TRAIN],
    "nvtx-kernels": ["nvtx-kernels", TRAIN],
    "nvtx-gpu": ["nvtx-gpu", TRAIN],
    "classify": ["classify", TRAIN],
    "sql": ["sql", TRAIN, "SELECT name, count(*) AS n FROM kernels GROUP BY name ORDER BY n DESC, name"],
    "schema": ["schema", "kernels"],
}
MULTI = {
    "breakdown": (["breakdown", FORWARD, TRAIN], "categories"),
    "diagnose": (["diagnose", TRAIN, "--window", "all"], "findings"),
    "attention": (["attention", FORWARD, *SHAPE], "totals"),
    "report": (REPORT, "times"),
}


def run(args, *extra) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in (*args, *extra)])
    assert result.exit_code == 0, result.output
    return result.stdout


def check_one_table(text: str) -> tuple[list[str], list[list[str]]]:
    """The CSV is one table: every row as wide as the header, no comment or blank lines; pandas reads the same."""
    rows = list(csv.reader(io.StringIO(text)))
    assert rows, "empty CSV"
    header, body = rows[0], rows[1:]
    assert all(len(r) == len(header) for r in body), [r for r in body if len(r) != len(header)][:2]
    assert not any(line == "" or line.startswith("#") for line in text.splitlines())
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert list(frame.columns) == header
    assert frame.shape == (len(body), len(header))
    return header, body


@pytest.mark.parametrize("command", list(SINGLE))
def test_single_table_commands(command):
    check_one_table(run(SINGLE[command], "--format", "csv"))


def json_tables(command: str, doc: dict) -> dict[str, int]:
    """{table name: rows} of a command's JSON."""
    if command == "breakdown":
        return {k: len(s["rows"]) for k, s in doc["sections"].items()}
    if command == "diagnose":
        out = {"findings": len(doc["findings"])}
        out.update({k: len(v["rows"]) for k, v in doc["nsys_rules"].items() if v["status"] == "ok"})
        return out
    return {t["name"]: len(t["rows"]) for s in doc["sections"].values() for t in s["tables"]}


@pytest.mark.parametrize("command", list(MULTI))
def test_every_table_of_a_multi_table_command(command):
    args, default = MULTI[command]
    tables = json_tables(command, json.loads(run(args, "--format", "json")))
    assert default in tables and len(tables) > 1
    for name, n_rows in tables.items():
        _, body = check_one_table(run(args, "--format", "csv", "--table", name))
        assert len(body) == n_rows, name
    assert run(args, "--format", "csv") == run(args, "--format", "csv", "--table", default)


@pytest.mark.parametrize("command", list(MULTI))
def test_an_unknown_table_names_the_tables(command):
    args, default = MULTI[command]
    result = CliRunner().invoke(cli, [str(a) for a in (*args, "--format", "csv", "--table", "nope")])
    assert result.exit_code == 2
    assert "nope" in result.output and default in result.output


@pytest.mark.parametrize("command", ["report", "attention"])
def test_report_and_attention_take_the_table_format(command):
    args = MULTI[command][0]
    table = run(args, "--format", "table")
    assert "-----" in table
    assert run(args) == table  # the default


def test_one_rule_of_nsys_gives_its_analyze_csv():
    text = run(["diagnose", TRAIN, "--window", "all", "--rule", "gpu_gaps"], "--format", "csv")
    header, _ = check_one_table(text)
    assert header == ["Row#", "Duration (ns)", "Start (ns)", "PID", "Device ID", "Context ID"]
