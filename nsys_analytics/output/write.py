"""The one writer: a `Report` in `--format table|csv|json|markdown|parquet`, to stdout or whole to the `-o` file
(core/files.py), with `--table` choosing the one table that CSV and Parquet hold.

- table / markdown: the report's layout; control characters in names are escaped (anyone's strings); a table
  on a terminal (or under COLUMNS) fits its width, sentences wrapped at words (output/terminal.py);
- csv / json: exact bytes; a streamed query result is written a batch at a time;
- parquet: a file only. One table goes to FILE; a report of several tables writes FILE.<name>.parquet for each, or
  FILE alone with --table NAME (Parquet holds one table per file).

In a rank's worker (many profiles), `collecting()` hands the reports back to the parent instead of writing them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..core import files
from ..core.errors import MissingDataError, UsageError
from ..core.result import Result
from ..core.words import plural
from .render import chunks, escape_controls, for_people, pick_table
from .report import Report, TableReport
from .terminal import laid_out, width_for, wrap_text

FORMATS = ("table", "csv", "json", "markdown", "parquet")
STREAMED = ("csv", "json")  # written a batch at a time where the result is streamed

_collected: list | None = None


@contextmanager
def collecting() -> Iterator[list]:
    """Within the block, `write` appends each report to the yielded list instead of writing it."""
    global _collected
    outer, _collected = _collected, []
    try:
        yield _collected
    finally:
        _collected = outer


def write(report: Report | Result, fmt: str = "table", output: Path | None = None, table: str | None = None,
          inputs: Iterable[str | Path] = ()) -> None:
    """Write `report` (a bare Result is a one-table report) in `fmt` to stdout, or whole to the file `output`."""
    if isinstance(report, Result):
        report = TableReport(report)
    if _collected is not None:
        _collected.append(report)
        return
    if fmt == "parquet":
        write_parquet_report(report, output, table, inputs)
        return
    if isinstance(report, TableReport) and report.result.batches is not None and fmt in STREAMED:
        _stream(report, fmt, output, table, inputs)
        return
    width = width_for(fmt, output is not None)
    with laid_out(width):
        text = wrap_text(report.render(fmt, table), width)  # sentences a layout left long (verdicts, notes)
    rows = plural(len(report.result.rows), "row") if isinstance(report, TableReport) else ""
    deliver(text, fmt, output, rows, inputs)


def deliver(text: str, fmt: str, output: Path | None, what: str = "", inputs: Iterable[str | Path] = ()) -> None:
    """Rendered text to stdout or, whole, to the file `output`. Human formats (all but CSV and JSON) have their
    control characters escaped: names in a profile are anyone's strings."""
    text = for_people(text, fmt)
    if output is None:
        click.echo(text, nl=False, color=True)  # as it is: click would strip some escape sequences off a pipe
        return
    files.write_text(output, text, inputs=inputs)
    click.echo(escape_controls(f"wrote {what + ' to ' if what else ''}{output}"), err=True)


def _stream(report: TableReport, fmt: str, output: Path | None, table: str | None, inputs) -> None:
    if table not in (None, report.name):
        pick_table({report.name: report.result}, table, report.name)
    if output is None:
        for text in chunks(report.result, fmt):
            click.echo(text, nl=False)
        return
    seen = [0]

    def counted():
        for batch in report.result.batches:
            seen[0] += len(batch)
            yield batch

    from dataclasses import replace

    result = replace(report.result, batches=counted())
    with files.replacing(output, inputs=inputs) as partial, open(partial, "w", encoding="utf-8") as out:
        for text in chunks(result, fmt):
            out.write(text)
    click.echo(escape_controls(f"wrote {plural(seen[0], 'row')} to {output}"), err=True)


# -- parquet -----------------------------------------------------------------------------------------------------
def parquet_output(output: Path | None, inputs: Iterable[str | Path] = ()) -> Path:
    """The -o file of --format parquet: required, and never one of the inputs."""
    if output is None:
        raise UsageError("--format parquet writes a file: add -o FILE.parquet")
    return files.check_output(output, inputs)


def write_parquet_report(report: Report, output: Path | None, table: str | None = None,
                         inputs: Iterable[str | Path] = ()) -> None:
    """One table to FILE (the one named by --table, or the report's only one); otherwise each table to
    FILE.<name>.parquet, a table that could not be made named on stderr."""
    output = parquet_output(output, inputs)
    tables = report.parquet_tables()
    if table or len(tables) == 1:
        name = table or next(iter(tables))
        result = pick_table(report.tables() if table else tables, name, name)
        write_parquet(result, output, inputs)
        label = f" ({name})" if len(report.tables()) > 1 else ""
        click.echo(escape_controls(f"wrote {plural(len(result.rows), 'row')}{label} to {output}"), err=True)
        return
    written = 0
    for name, result in tables.items():
        if isinstance(result, str):
            click.echo(escape_controls(f"table {name} not written: {result}"), err=True)
            continue
        path = files.check_output(output.with_name(f"{output.name.removesuffix('.parquet')}.{name}.parquet"), inputs)
        write_parquet(result, path, inputs)
        click.echo(escape_controls(f"wrote {plural(len(result.rows), 'row')} to {path}"), err=True)
        written += 1
    if not written:
        raise MissingDataError(f"no table to write: {'; '.join(f'{n}: {t}' for n, t in tables.items())}")


def write_parquet(result: Result, path: str | Path, inputs: Iterable[str | Path] = ()) -> None:
    """A Result as Parquet (DuckDB's writer), whole. Column types come from the values: integers stay integers
    with NULLs, floats, booleans and text as they are."""
    from ..core.duckdb_engine import duckdb
    import pandas as pd

    frame = pd.DataFrame({c: pd.array([row[i] for row in result.materialize().rows], dtype=_parquet_dtype(result, i))
                          for i, c in enumerate(result.columns)})
    with files.replacing(path, inputs=inputs) as partial:
        con = duckdb.connect()
        try:
            con.register("result_frame", frame)
            con.execute(f"COPY result_frame TO '{_sql_text(partial)}' (FORMAT parquet)")
        finally:
            con.close()


def _parquet_dtype(result: Result, i: int) -> str:
    values = [row[i] for row in result.rows if row[i] is not None]
    if values and all(type(v) is bool for v in values):
        return "boolean"
    if values and all(type(v) is int for v in values):
        return "Int64"
    if values and all(type(v) in (int, float) for v in values):
        return "Float64"
    if all(isinstance(v, str) for v in values):
        return "string"
    return "object"


def _sql_text(text) -> str:
    return str(text).replace("'", "''")
