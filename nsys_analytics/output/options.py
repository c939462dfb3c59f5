"""The output options of every command, declared once: --format, -o/--output, --wide and --table (output/write.py writes
what they ask for). Light to import: `runs list` and `--help` load no profile machinery."""

from __future__ import annotations

from pathlib import Path

import click

from .terminal import wide_option
from .write import FORMATS


def output_options(f):
    """--format, -o/--output and --wide: the one declaration of each, for every command (output/write.py writes
    them)."""
    f = wide_option(f)
    f = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write to FILE instead of standard output.")(f)
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, callback=_format_of_output,
                        help="Output format; default: the one -o FILE's suffix names (.csv, .json, .md, .parquet), "
                             "else table (parquet: a file, give -o FILE.parquet; a command of several tables writes "
                             "FILE.<table>.parquet for each, or, where the command has --table, FILE alone).")(f)


SUFFIX_FORMATS = {".csv": "csv", ".json": "json", ".md": "markdown", ".parquet": "parquet"}


def _format_of_output(ctx: click.Context, _param, value: str | None) -> str:
    """--format as given, else the format -o's file suffix names (`-o out.csv` writes CSV), else table. Click
    reads the options given on the command line before the defaulted ones, so a given -o is known here."""
    if value is not None:
        return value
    output = ctx.params.get("output")
    return SUFFIX_FORMATS.get(output.suffix.lower(), "table") if output is not None else "table"


def table_option(default: str, names: str):
    """--table NAME: the one table `--format csv` (or parquet) writes, for commands with several (JSON keeps them
    all)."""
    return click.option("--table", "table", metavar="NAME",
                        help=f"With --format csv or parquet: the table to write ({names}; default {default}). CSV "
                             "holds one table, JSON every one.")
