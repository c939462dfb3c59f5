"""Every command in every format, as a user types it."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES, oracle_csv, read_csv

TRAIN = PROFILES / "gpt_train.sqlite"
FORMATS = ["table", "csv", "json", "markdown"]


def run(*args: str, input: str | None = None):
    result = CliRunner().invoke(cli, list(args), input=input)
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_has_help_with_examples():
    import click

    ctx = click.Context(cli)
    assert len(cli.list_commands(ctx)) >= 13
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        text = run(name, "--help")
        assert "Examples:" in text, f"{name} --help has no examples"
        assert command.help and command.help.strip(), name


@pytest.mark.parametrize("fmt", FORMATS)
def test_kernels_formats(fmt):
    out = run("kernels", str(TRAIN), "--limit", "3", "--format", fmt)
    top = read_csv(oracle_csv(TRAIN, "cuda_gpu_kern_sum"))[1]
    if fmt == "json":
        rows = json.loads(out)
        assert len(rows) == 3 and rows[0]["total_time_ns"] == int(top[1]) and rows[0]["name"] == top[8]
    elif fmt == "csv":
        assert list(csv.reader(io.StringIO(out)))[1] == top
    elif fmt == "markdown":
        assert out.startswith("| Time (%) | Total Time (ns) |") and f"{int(top[1]):,}" in out
    else:
        assert out.splitlines()[0].split()[:3] == ["Time", "(%)", "Total"] and f"{int(top[1]):,}" in out


def test_kernels_filters_and_output_file(tmp_path):
    target = tmp_path / "k.csv"
    run("kernels", str(TRAIN), "--match", "gemm", "--format", "csv", "-o", str(target))
    rows = read_csv(target)[1:]
    assert rows and all("gemm" in r[8] for r in rows)
    assert abs(sum(float(r[0]) for r in rows) - 100) < 0.5  # shares are of the listed kernels


def test_kernels_time_window_and_stream_filters():
    everything = json.loads(run("kernels", str(TRAIN), "--format", "json"))
    total = sum(r["instances"] for r in everything)
    early = json.loads(run("kernels", str(TRAIN), "--format", "json", "--end", "0s"))
    assert early == []
    none = json.loads(run("kernels", str(TRAIN), "--format", "json", "--stream", "999999"))
    assert none == []
    all_again = json.loads(run("kernels", str(TRAIN), "--format", "json", "--start", "0", "--device", "0"))
    assert sum(r["instances"] for r in all_again) == total


@pytest.mark.parametrize("command", ["kernels", "classify", "breakdown"])
def test_a_start_after_the_end_is_a_usage_error(command):
    result = CliRunner().invoke(cli, [command, str(TRAIN), "--start", "2.65s", "--end", "2.6s"])
    assert result.exit_code == 2 and result.output == (
        "Error: --start 2.65s is later than --end 2.6s: give the earlier time as --start\n")


def test_kernels_table_shortens_long_names_only_in_table():
    table = run("kernels", str(TRAIN), "--format", "table")
    csv_out = run("kernels", str(TRAIN), "--format", "csv")
    longest = max(len(r[8]) for r in csv.reader(io.StringIO(csv_out)))
    assert longest > 120 and max(len(line) for line in table.splitlines()) < longest


def test_sql_query_forms(tmp_path):
    query = "SELECT count(*) AS n FROM kernels WHERE duration_ns > $min"
    by_arg = json.loads(run("sql", str(TRAIN), query, "-p", "min", "0", "--format", "json"))
    assert by_arg == [{"n": 1986}]  # fixtures/README.md: 1986 kernels in gpt_train
    qfile = tmp_path / "q.sql"
    qfile.write_text(query)
    assert json.loads(run("sql", str(TRAIN), "-f", str(qfile), "-p", "min", "0", "--format", "json")) == by_arg
    assert json.loads(run("sql", str(TRAIN), "-p", "min", "0", "--format", "json", input=query)) == by_arg


def test_sql_raw_tables_and_attach():
    raw = json.loads(run("sql", str(TRAIN), "SELECT count(*) AS n FROM raw.CUPTI_ACTIVITY_KIND_KERNEL",
                         "--format", "json"))
    assert raw == [{"n": 1986}]
    both = json.loads(run("sql", str(TRAIN), "-a", f"fwd={PROFILES / 'gpt_forward.sqlite'}", "--format", "json",
                          "SELECT (SELECT count(*) FROM kernels) AS train, (SELECT count(*) FROM fwd.kernels) AS fwd"))
    assert both == [{"train": 1986, "fwd": 1227}]


@pytest.mark.parametrize("fmt", FORMATS)
def test_info_formats(fmt):
    out = run("info", str(TRAIN), "--format", fmt)
    if fmt == "json":
        info = json.loads(out)
        assert info["row_counts"]["kernels"] == 1986 and info["session"]["nsys_version"].startswith("2025.3")
        assert info["devices"][0]["name"] == "NVIDIA H200"
    else:
        assert "1986" in out.replace(",", "") and "H200" in out


def test_info_names_what_is_missing_and_the_fix():
    info = json.loads(run("info", str(PROFILES / "no_nvtx.sqlite"), "--format", "json"))
    missing = {m["view"]: m for m in info["missing"]}
    assert "nvtx_events" in missing and "--trace=cuda,nvtx" in missing["nvtx_events"]["fix"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_schema_formats(fmt):
    out = run("schema", "kernels", "--format", fmt)
    assert "duration_ns" in out and "launch_tid" in out


def test_schema_documents_every_column_of_every_view():
    import nsys_analytics
    from nsys_analytics.data import sql_files
    from nsys_analytics.data.schema_objects import PUBLIC_VIEWS

    with nsys_analytics.open(TRAIN) as p:
        for view in PUBLIC_VIEWS:
            actual = p.sql(f"SELECT * FROM {view} LIMIT 0").columns
            documented = [c.name for c in sql_files.view_columns(view)]
            assert documented == actual, view


def test_nsys_rep_is_exported_once_with_nsys(tmp_path, monkeypatch):
    """A .nsys-rep goes through `nsys export` (here a stand-in that copies a real export), then is cached."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    calls = tmp_path / "calls.txt"
    fake = bindir / "nsys"
    fake.write_text(f"""#!/bin/sh
echo "$@" >> {calls}
while [ $# -gt 1 ]; do [ "$1" = "--output" ] && out=$2; shift; done
cp {PROFILES / 'no_nvtx.sqlite'} "$out"
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    rep = tmp_path / "run.nsys-rep"
    shutil.copy(PROFILES / "no_nvtx.nsys-rep", rep)
    first = run("kernels", str(rep), "--format", "csv")
    second = run("kernels", str(rep), "--format", "csv")
    assert first == second == run("kernels", str(PROFILES / "no_nvtx.sqlite"), "--format", "csv")
    assert calls.read_text().count("export --type sqlite") == 1
    assert not (tmp_path / "run.sqlite").exists()  # the export lives in the cache folder, never beside the report
    assert len(list(Path(os.environ["NSYS_ANALYTICS_CACHE"]).rglob("run-*.sqlite"))) == 1
