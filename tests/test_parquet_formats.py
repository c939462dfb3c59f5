"""`--format parquet -o FILE` on every command that takes --format: one table per file. A command with one table
writes FILE; one with several writes FILE.<table>.parquet per table, or FILE alone with --table NAME. Each file is
read back with DuckDB and pandas and compared with the same table as `--format csv --table NAME` prints it (CSV
rounds floats to one decimal; integers and text must be equal)."""

from __future__ import annotations

import io
import math

import click
import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES
from .test_collect_profile import fake, program  # noqa: F401 (a fixture)

TRAIN = PROFILES / "gpt_train.sqlite"
FORWARD = PROFILES / "gpt_forward.sqlite"
RENAMED = PROFILES / "gpt_renamed_forward.sqlite"
ATTENTION = ["--attention-range", "attention", "--scores-range", "attn_scores", "--softmax-range", "attn_softmax",
             "--output-range", "attn_out", "--batch", "4", "--seq-len", "256", "--d-model", "256", "--heads", "4"]


def run(*args, code=0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def commands_with_format():
    ctx = click.Context(cli)
    found = []

    def walk(command, path):
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), [*path, name])
        elif any("--format" in getattr(p, "opts", ()) for p in command.params):
            found.append((" ".join(path), next(p for p in command.params if "--format" in getattr(p, "opts", ()))))

    walk(cli, [])
    return found


def test_every_command_with_format_takes_parquet():
    found = commands_with_format()
    assert len(found) >= 20  # info ... profile, runs list/show/diff/trend, cache list/info
    missing = [name for name, option in found if "parquet" not in option.type.choices]
    assert not missing


def same_table(parquet_path, csv_text: str) -> int:
    """The Parquet file holds the CSV's table: same shape, equal integers and text, floats within CSV's rounding."""
    frame = pd.read_parquet(parquet_path)
    via_duckdb = duckdb.connect().execute(f"SELECT count(*) FROM read_parquet('{parquet_path}')").fetchone()[0]
    expected = pd.read_csv(io.StringIO(csv_text), keep_default_na=False, dtype=str)
    assert len(frame) == via_duckdb == len(expected)
    assert len(frame.columns) == len(expected.columns)
    for got_column, (_, want_column) in zip(frame.columns, expected.items()):
        for got, want in zip(frame[got_column], want_column):
            if got is None or (isinstance(got, float) and math.isnan(got)) or got is pd.NA:
                assert want == ""
            elif isinstance(got, float):
                assert got == pytest.approx(float(want), abs=0.051), (got_column, got, want)
            else:
                assert str(got) == want, (got_column, got, want)
    return len(frame)


def csv_of(*args, table):
    return run(*args, "--format", "csv", "--table", table).stdout


@pytest.mark.parametrize("args", [
    ["diagnose", TRAIN, "--window", "all"],
    ["attention", RENAMED, *ATTENTION],
    ["report", "--forward", FORWARD, "--train", TRAIN],
    ["breakdown", FORWARD, TRAIN],
    ["diff", FORWARD, TRAIN],
], ids=["diagnose", "attention", "report", "breakdown", "diff"])
def test_multi_table_commands_write_one_file_per_table(tmp_path, args):
    result = run(*args, "--format", "parquet", "-o", tmp_path / "out.parquet")
    files = sorted(tmp_path.iterdir())
    assert files and all(f.name.startswith("out.") and f.name.endswith(".parquet") for f in files), result.output
    assert not (tmp_path / "out.parquet").exists()
    rows = 0
    for path in files:
        table = path.name.removeprefix("out.").removesuffix(".parquet")
        rows += same_table(path, csv_of(*args, table=table))
    assert rows > 0
    # --table NAME: that table alone, in FILE itself
    table = files[0].name.removeprefix("out.").removesuffix(".parquet")
    one = tmp_path / "one" / "t.parquet"
    one.parent.mkdir()
    run(*args, "--format", "parquet", "--table", table, "-o", one)
    assert [p.name for p in one.parent.iterdir()] == ["t.parquet"]
    same_table(one, csv_of(*args, table=table))


def test_diagnose_parquet_names_every_table(tmp_path):
    run("diagnose", TRAIN, "--window", "all", "--format", "parquet", "-o", tmp_path / "d.parquet")
    names = {p.name for p in tmp_path.iterdir()}
    assert {"d.findings.parquet", "d.gpu_gaps.parquet", "d.cuda_memcpy_async.parquet"} <= names
    findings = pd.read_parquet(tmp_path / "d.findings.parquet")
    assert list(findings.columns) == ["severity", "rule", "at_stake_ms", "windows", "ranges", "summary", "fix"]
    assert findings["at_stake_ms"].dtype.kind == "f"


def test_parquet_errors(tmp_path):
    result = run("diagnose", TRAIN, "--format", "parquet", code=2)
    assert "add -o FILE.parquet" in result.output
    result = run("report", "--forward", FORWARD, "--format", "parquet", "--table", "nope", "-o", tmp_path / "x.parquet",
                 code=2)
    assert "has the tables" in result.output
    before = FORWARD.read_bytes()
    run("attention", FORWARD, "--format", "parquet", "-o", FORWARD, code=2)
    assert FORWARD.read_bytes() == before
    result = run("diagnose", TRAIN, FORWARD, "--format", "parquet", "-o", tmp_path / "d.parquet", code=2)
    assert "once per profile" in result.output
    assert list(tmp_path.iterdir()) == []


def test_runs_commands_write_parquet(tmp_path):
    db = tmp_path / "runs.db"
    run("runs", "add", TRAIN, "--db", db)
    run("runs", "add", FORWARD, "--db", db)
    run("runs", "list", "--db", db, "--format", "parquet", "-o", tmp_path / "list.parquet")
    listed = pd.read_parquet(tmp_path / "list.parquet")
    assert len(listed) == 2
    run("runs", "trend", "--db", db, "--metric", "kernel_time", "--format", "parquet", "-o", tmp_path / "t.parquet")
    same_table(tmp_path / "t.parquet", run("runs", "trend", "--db", db, "--metric", "kernel_time",
                                           "--format", "csv").stdout)
    run_id = int(listed["id"].min())
    run("runs", "show", str(run_id), "--db", db, "--format", "parquet", "-o", tmp_path / "show.parquet")
    assert {"show.run.parquet", "show.findings.parquet"} <= {p.name for p in tmp_path.iterdir()}
    run("runs", "diff", str(run_id), str(run_id + 1), "--db", db, "--format", "parquet", "--table", "kernels",
        "-o", tmp_path / "diff.parquet")
    same_table(tmp_path / "diff.parquet", run("runs", "diff", str(run_id), str(run_id + 1), "--db", db,
                                              "--format", "csv", "--table", "kernels").stdout)


def test_profile_writes_its_headline_tables(fake, tmp_path):  # noqa: F811
    """`profile` (with the stand-in nsys of test_collect_profile): -o is checked before the program runs."""
    fake.run("profile", "--dir", str(fake.out), "--format", "parquet", "--", *program(tmp_path), code=2)
    assert not (tmp_path / "ran").exists()
    out = tmp_path / "h.parquet"
    fake.run("profile", "--dir", str(fake.out), "--format", "parquet", "-o", str(out), "--", *program(tmp_path))
    written = sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".parquet")
    assert written and all(n.startswith("h.") for n in written)
    assert sum(len(pd.read_parquet(tmp_path / n)) for n in written) > 0
    # --format csv: the top kernels (the headline had no named table, so csv had none to pick)
    result = fake.run("profile", "--dir", str(fake.out), "--force", "--format", "csv", "--", *program(tmp_path))
    kernels = pd.read_parquet(tmp_path / "h.kernels.parquet")
    assert str(kernels["name"].iloc[0]) in result.stdout


def test_ranks_writes_parquet_tables_not_text(tmp_path):
    """`ranks R0 R1 --format parquet -o r.parquet` wrote a text table into r.parquet (DuckDB: "No magic bytes
    found"); it writes each table to r.<table>.parquet, or r.parquet alone with --table, like every command of
    several tables, each equal to its CSV."""
    ranks = sorted(str(p) for p in (PROFILES.parent / "ranks" / "ddp_straggler").glob("*.sqlite"))
    run("ranks", *ranks, "--format", "parquet", "-o", tmp_path / "r.parquet")
    names = {p.name for p in tmp_path.iterdir()}
    assert {"r.summary.parquet", "r.steps.parquet", "r.phases.parquet", "r.findings.parquet"} <= names
    assert "r.parquet" not in names
    for table in ("summary", "steps"):
        csv_text = run("ranks", *ranks, "--format", "csv", "--table", table).stdout
        csv_text = csv_text[csv_text.index("rank,"):]  # the lines before the table went to stderr
        assert same_table(tmp_path / f"r.{table}.parquet", csv_text) == len(ranks) * (1 if table == "summary" else 6)
    run("ranks", *ranks, "--format", "parquet", "--table", "collectives", "-o", tmp_path / "c.parquet")
    assert len(pd.read_parquet(tmp_path / "c.parquet")) > 0
