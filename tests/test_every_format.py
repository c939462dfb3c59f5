"""Every command that writes a report, in every format, through the one writer: on a fixture profile and, where the
command takes several profiles, on two ranks. The list of commands comes from the CLI itself, so a new command
without an invocation here fails `test_every_command_has_an_invocation`.

- table, markdown: exit 0 and text on stdout, no control character from a profile's names;
- csv: one rectangular table, read alike by pandas and the csv module (over ranks too: diagnose's findings of
  every rank under a `rank` column, the cross-rank findings first as rank `all`);
- json: parsed;
- parquet (-o FILE.parquet): every file written is read back by DuckDB, and the one CSV table equals its Parquet
  file (the CSV's default table goes to FILE, or to FILE.<default>.parquet for a report of several).
"""

from __future__ import annotations

import csv
import io
import json

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, PROFILES, unpacked
from .test_collect_profile import fake, program  # noqa: F401 (a fixture)
from .test_parquet_formats import commands_with_format

TRAIN = PROFILES / "gpt_train.sqlite"
FORWARD = PROFILES / "gpt_forward.sqlite"
RANKS = sorted((FIXTURES / "ranks" / "ddp_straggler").glob("*.sqlite"))
NCU_CSV = FIXTURES / "ncu" / "matmul_basic_raw.csv"
SHAPE = ["--batch", "4", "--seq-len", "256", "--d-model", "256", "--heads", "4"]
FORMATS = ("table", "markdown", "csv", "json", "parquet")

# command -> its arguments on one profile; {db}: a run catalog with two runs (ids 1 and 2)
ONE = {
    "info": [TRAIN],
    "kernels": [TRAIN, "--limit", "5"],
    "sql": [TRAIN, "SELECT name, count(*) AS n FROM kernels GROUP BY name ORDER BY n DESC, name LIMIT 5"],
    "schema": ["kernels"],
    "nvtx": [TRAIN],
    "nvtx-kernels": [TRAIN],
    "nvtx-gpu": [TRAIN],
    "classify": [TRAIN, "--limit", "5"],
    "breakdown": [TRAIN],
    "modules": [unpacked(FIXTURES / "modules" / "modules_instrument.sqlite.xz")],
    "attention": [FORWARD, *SHAPE],
    "report": ["--forward", FORWARD, "--train", TRAIN],
    "diagnose": [TRAIN],
    "ncu": [NCU_CSV],
    "ranks": RANKS,
    "nccl": RANKS,
    "diff": [FORWARD, TRAIN],
    "runs list": ["--db", "{db}"],
    "runs show": ["1", "--db", "{db}"],
    "runs diff": ["1", "2", "--db", "{db}"],
    "runs trend": ["--db", "{db}", "--metric", "kernel_time"],
    "cache info": [],
    "cache list": [],
    "profile": None,  # runs a program: with the stand-in nsys below
}
# commands that take several profiles as ranks (they have --skip-bad): the same arguments with the two ranks in
# place of the profile (attention's text per rank takes diagnose's path; the rank fixtures have no attention ranges)
MANY = {name: [*RANKS, *args[1:]] for name, args in ONE.items()
        if args and args[0] == TRAIN and "--skip-bad" in {o for p in cli.get_command(None, name).params for o in p.opts}}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    db = tmp_path_factory.mktemp("catalog") / "runs.db"
    for profile in (TRAIN, FORWARD):
        run("runs", "add", profile, "--db", db)
    return db


def run(*args, code=0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, (args, result.output)
    return result


def test_every_command_has_an_invocation():
    assert {name for name, _ in commands_with_format()} == set(ONE)


def check(args: list, fmt: str, tmp_path, invoke=run):
    """`args` in `fmt`: the checks of this module's docstring."""
    if fmt == "parquet":
        out = tmp_path / "out.parquet"
        invoke(*args, "--format", "parquet", "-o", out)
        written = sorted(tmp_path.glob("out*.parquet"))
        assert written, "no Parquet file written"
        for path in written:
            duckdb.connect().execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchone()
        csv_text = invoke(*args, "--format", "csv").stdout
        table = out if out in written else _default_file(written, csv_text)
        _same_table(table, _table_part(csv_text))
        return
    text = invoke(*args, "--format", fmt).stdout
    assert text.strip(), "nothing written"
    if fmt == "json":
        json.loads(text)
    elif fmt == "csv":
        body = _table_part(text)
        rows = list(csv.reader(io.StringIO(body)))
        assert len({len(r) for r in rows}) == 1, "CSV is not one rectangular table"
        assert len(pd.read_csv(io.StringIO(body), keep_default_na=False)) == len(rows) - 1
    else:
        assert "\x1b" not in text


def _same_table(parquet_path, csv_text: str) -> None:
    """The Parquet file holds the CSV's table: same shape, equal cells (numbers within CSV's one decimal; a column
    of mixed values is text in Parquet, so a number may come as its text)."""
    frame = pd.read_parquet(parquet_path)
    expected = pd.read_csv(io.StringIO(csv_text), keep_default_na=False, dtype=str)
    assert frame.shape == expected.shape
    for got_column, (_, want_column) in zip(frame.columns, expected.items()):
        for got, want in zip(frame[got_column], want_column):
            if got is None or got is pd.NA or (isinstance(got, float) and got != got):
                assert want == ""
            elif _number(got) is not None and _number(want) is not None:
                assert _number(got) == pytest.approx(_number(want), abs=0.051), (got_column, got, want)
            else:
                assert str(got) == want, (got_column, got, want)


def _number(value) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _table_part(csv_text: str) -> str:
    """The CSV as a file gets it (lines a command prints before its table go to stderr, which CliRunner mixes in)."""
    lines = csv_text.splitlines(keepends=True)
    widths = [len(next(csv.reader([line]))) for line in lines]
    start = next(i for i, w in enumerate(widths) if w > 1 and all(x == w for x in widths[i:]))
    return "".join(lines[start:])


def _default_file(written, csv_text: str):
    """Of a family FILE.<name>.parquet, the file that holds the CSV's table (the same header and row count)."""
    header = next(csv.reader([_table_part(csv_text).splitlines()[0]]))
    rows = len(_table_part(csv_text).splitlines()) - 1
    for path in written:
        frame = pd.read_parquet(path)
        if len(frame) == rows and len(frame.columns) == len(header):
            return path
    raise AssertionError(f"no Parquet file holds the CSV table ({header}, {rows} rows): {written}")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", [n for n in ONE if ONE[n] is not None])
def test_one_profile(name, fmt, tmp_path, catalog):
    args = [str(a).replace("{db}", str(catalog)) for a in ONE[name]]
    check([*name.split(), *args], fmt, tmp_path)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(MANY))
def test_two_ranks(name, fmt, tmp_path):
    args = [*name.split(), *MANY[name], "--jobs", "1"]
    if fmt == "parquet" and name == "diagnose":
        result = run(*args, "--format", "parquet", "-o", tmp_path / "x.parquet", code=2)
        assert "once per profile" in result.output  # a text section per rank has no Parquet form
        return
    check(args, fmt, tmp_path)


@pytest.mark.parametrize("fmt", FORMATS)
def test_profile(fmt, fake, tmp_path):  # noqa: F811
    def invoke(*args):
        return fake.run(*[str(a) for a in args])

    args = ["profile", "--dir", str(fake.out), "--force"]
    command = ["--", *program(tmp_path)]
    if fmt == "parquet":
        invoke(*args, "--format", "parquet", "-o", tmp_path / "out.parquet", *command)
        written = sorted(tmp_path.glob("out*.parquet"))
        assert written and all(len(pd.read_parquet(p)) >= 0 for p in written)
        return
    text = invoke(*args, "--format", fmt, *command).stdout
    assert text.strip()
    if fmt == "json":
        json.loads(text[text.index("{"):])


@pytest.mark.parametrize("suffix,fmt", [(".csv", "csv"), (".json", "json"), (".md", "markdown"), (".txt", "table"),
                                        (".CSV", "csv")])
def test_the_output_suffix_picks_the_format(suffix, fmt, tmp_path):
    """Without --format, `-o FILE` writes what its suffix names (a table into `out.csv` before), whichever option
    comes first; a given --format wins over the suffix."""
    def run(*args):
        result = CliRunner().invoke(cli, ["kernels", str(TRAIN), "--limit", "3", *args])
        assert result.exit_code == 0, result.output

    run("-o", str(tmp_path / f"by_suffix{suffix}"))
    run("--format", fmt, "-o", str(tmp_path / f"explicit{suffix}"))
    expected = (tmp_path / f"explicit{suffix}").read_text()
    assert (tmp_path / f"by_suffix{suffix}").read_text() == expected
    run("-o", str(tmp_path / f"first{suffix}"), "--limit", "3")
    assert (tmp_path / f"first{suffix}").read_text() == expected
    run("--format", "table", "-o", str(tmp_path / f"table{suffix}"))
    assert (tmp_path / f"table{suffix}").read_text().startswith("Time (%)  ")
    if fmt == "csv":
        assert next(csv.reader(io.StringIO(expected)))[0] == "Time (%)"
    if fmt == "json":
        assert len(json.loads(expected)) == 3


def test_a_parquet_suffix_writes_parquet(tmp_path):
    target = tmp_path / "kernels.parquet"
    result = CliRunner().invoke(cli, ["kernels", str(TRAIN), "--limit", "3", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{target}')").fetchone()[0] == 3
