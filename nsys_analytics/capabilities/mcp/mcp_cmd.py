"""`nsys-analytics mcp`: the command, and how a tool runs a report command (the CLI's own code, with its one-line
errors). The `mcp` SDK is imported when the command runs, never by `--help` or another command."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
import traceback
from pathlib import Path

import click

from .profiles import Served
from ..query import sql_cmd
from ...core.errors import EXIT_INTERRUPTED, NsysAnalyticsError, QueryError, UsageError
from ...cli.profiles import open_any

# The CLI's report collector and sys.stdout are one per process: tool calls (threads of the SDK) run one at a time.
_ONE_AT_A_TIME = threading.Lock()
_DEBUG = {"on": False}  # `nsys-analytics --debug mcp`: a failed tool's traceback goes to stderr too


@click.command("mcp")
@click.argument("profiles", nargs=-1, required=True, metavar="PROFILES...",
                type=click.Path(path_type=str, readable=False))
def command(profiles):
    """Serve the reports to an AI assistant as read-only MCP tools (stdio).

    PROFILES: the profiles the tools may read (files, globs, a folder of ranks); no tool opens any other file.
    The tools are info, kernels, nvtx, nvtx_kernels, breakdown, diagnose, modules, ranks (over all PROFILES),
    diff, report, schema and sql (under the `sql` command's read-only guard), each answering with the command's
    `--format json` document and the terminal command that reproduces it. Standard input and output carry the
    protocol; start it from the assistant's configuration (docs/mcp.md).

    \b
    Examples:
      nsys-analytics mcp run.sqlite
      nsys-analytics mcp baseline.sqlite candidate.sqlite
      nsys-analytics mcp runs/rank*.sqlite
    """
    served = Served(checked(profiles))
    _DEBUG["on"] = bool(click.get_current_context().find_root().params.get("debug"))
    from importlib.metadata import version

    from .server import serve

    try:
        serve(served, run, run_sql, version("nsys-analytics"))
    except KeyboardInterrupt:  # Ctrl-C: the SDK's stdin reader is a thread blocked in read(), nothing to wait for
        click.echo("Interrupted.", err=True)
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)


def checked(items) -> list[Path]:
    """The profiles to serve, each opened once now: a bad file is the one-line error every command gives, before
    the server answers anything."""
    from ...data.columnar import is_export_dir
    from ...data.profile_set import expand_inputs

    files: dict[str, Path] = {}  # by real path: a file given twice (or through a link) is served once
    for item in items:
        expanded = expand_inputs([item]) if not is_export_dir(Path(item)) else None
        for path in expanded.files if expanded else [Path(item)]:
            files.setdefault(os.path.realpath(path), path)
        for line in expanded.ignored if expanded else []:
            click.echo(f"ignored {line}", err=True)
    if not files:
        raise UsageError(f"no nsys profile among {', '.join(items)}")
    for path in files.values():
        with open_any(path):
            pass
    return list(files.values())


def run(name: str, args: list[str]):
    """(The JSON document of `nsys-analytics NAME ARGS --format json`, built by the command itself, the lines it
    noted on stderr: `Note: ...`)."""
    with _ONE_AT_A_TIME:
        try:
            return _report(name, args)
        except Exception as e:  # noqa: BLE001 (every failure is the tool's one-line error)
            raise _tool_error(e) from None


def _report(name: str, args: list[str]):
    from ...cli.main import cli
    from ...output.write import collecting
    from .tools import with_json

    cmd = cli.get_command(None, name)
    err = io.StringIO()  # the command's notes go to the assistant; the rest (progress) to stderr, as before
    try:
        with collecting() as reports, contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:  # stdout is the protocol's
                with cmd.make_context(name, with_json(args)) as ctx:
                    cmd.invoke(ctx)
            except click.exceptions.Exit:  # an exit code after the report (diagnose --fail-on): the report stands
                pass
    finally:
        lines = err.getvalue().splitlines()
        sys.stderr.write("".join(f"{line}\n" for line in lines if not line.startswith("Note: ")))
    notes = tuple(line for line in lines if line.startswith("Note: "))
    if not reports:
        raise RuntimeError(f"{name} wrote no report")
    return json.loads(reports[-1].render("json")), notes


def run_sql(path: str, text: str, params: dict, attachments: list[str], max_rows: int) -> tuple[list[dict], int]:
    """The `sql` command's query under its guard (data/sql_guard.py), and no file but the server's profiles:
    the first `max_rows` rows as JSON records, and how many rows there are in all."""
    from dataclasses import replace

    from ...output.render import to_json

    kept: list[str] = []
    total = [0]

    def keep(result) -> None:  # the first rows as the CLI's JSON writes them; the others only counted
        rows = []
        for batch in result.batches if result.batches is not None else [result.rows]:
            total[0] += len(batch)
            rows += batch[:max_rows - len(rows)]
        kept.append(to_json(replace(result, rows=rows, batches=None)))

    with _ONE_AT_A_TIME:
        try:
            if text.strip() == "-":  # the CLI's "read standard input": here that is the protocol
                raise UsageError("give the query itself: standard input carries the MCP protocol")
            text = sql_cmd._query_text(text, None)
            _no_other_files(text)
            sql_cmd.run_query(path, text, {k: _typed(v) for k, v in params.items()}, attachments, keep)
        except Exception as e:  # noqa: BLE001
            raise _tool_error(e) from None
    return json.loads(kept[0]), total[0]


def _no_other_files(text: str) -> None:
    """The one refusal the `sql` command has not: a query that names a file (read_csv('x.csv'), FROM 'x.parquet')
    reads it there; a tool reads the server's profiles only. What the guard refuses, it refuses first, alike."""
    from ...data import sql_guard

    reads = sql_guard.check_read_only(text)
    if reads.files:
        raise QueryError(f"{', '.join(map(repr, reads.files))}: the MCP server reads only the profiles it was "
                         "started with; run `nsys-analytics sql` in a terminal to read other files")


def _typed(value):
    return sql_cmd._typed(value) if isinstance(value, str) else value


def _tool_error(e: Exception):
    """`e` as the CLI's one line (cli/main.py) as a tool's failure; its traceback on stderr under --debug."""
    from ...cli.main import _known, escape_controls
    from .tools import Failure

    if _DEBUG["on"]:
        traceback.print_exception(e)
    if isinstance(e, click.ClickException):
        return Failure(f"Error: {e.format_message()}")
    e = _known(e)
    if isinstance(e, NsysAnalyticsError):
        return Failure(f"Error: {escape_controls(str(e))}")
    return Failure(f"Error: internal error: {escape_controls(f'{type(e).__name__}: {e}')} (re-run with --debug)")
