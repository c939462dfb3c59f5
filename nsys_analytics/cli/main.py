"""Entry point: the command group, --debug, and the one place where errors become exit codes."""

from __future__ import annotations

import importlib
import sys

import click

from ..core import progress, registry
from ..core.errors import EXIT_DATA_ERROR, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, NsysAnalyticsError
from . import interrupts

OWN_PROCESS = False  # main() runs: the process is this one command's (`runs add` may fork: catalog/writer.py)


class ErrorHandlingGroup(click.Group):
    """Turns library errors into `Error: …` and a documented exit code; --debug shows the traceback.

    The commands are the registry's records (core/registry.py), each imported only when it runs: a command's
    start-up should not pay for the imports of the others (pandas, matplotlib, ncu_report)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return registry.names()

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        record = registry.find(name)
        if record is None:
            return None
        from . import outputs  # here, not at the top: --help needs neither it nor the data layer it imports

        return outputs.guarded(importlib.import_module(record.module).command)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of --help, from the records' summaries, without importing any command."""
        records = registry.records()
        limit = formatter.width - 6 - max(len(r.name) for r in records)
        # click's own shortening, through its public API (click.utils.make_default_short_help is deprecated)
        rows = [(r.name, click.Command(r.name, help=r.summary).get_short_help_str(limit)) for r in records]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        debug = ctx.params.get("debug") or "--debug" in sys.argv
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            sys.stderr.close()  # output piped into `head`: stop quietly
            ctx.exit(0)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as e:
            if interrupts.requested():  # whatever a query raises when Ctrl-C interrupted it
                click.echo("Interrupted.", err=True)
                ctx.exit(EXIT_INTERRUPTED)
            if debug:
                raise
            e = _known(e)
            if isinstance(e, NsysAnalyticsError):
                click.secho(f"Error: {escape_controls(str(e))}", fg="red", err=True)
                ctx.exit(e.exit_code)
            # a bug: still one line, with the way to learn more
            message = escape_controls(f"{type(e).__name__}: {e}")
            click.secho(f"Error: internal error: {message} (re-run with --debug)", fg="red", err=True)
            ctx.exit(EXIT_INTERNAL_ERROR)


def _known(e: Exception) -> Exception:
    """Running out of memory, or a value in a profile that no query can use (whichever query met it), as the
    one-line error it is (exit 1); other exceptions as they are."""
    from ..core.duckdb_engine import duckdb
    from ..data import bad_values, database, source

    if not isinstance(e, (duckdb.Error, MemoryError, RuntimeError, OverflowError)):
        return e
    return database.memory_error(e) or bad_values.value_error(e, source.inputs()) or e


@click.group(cls=ErrorHandlingGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show the full traceback on errors.")
@click.option("--reexport", is_flag=True,
              help="Export .nsys-rep reports afresh with nsys, into the cache folder (your own exports beside a "
                   "report are never replaced).")
@click.option("--no-cache", is_flag=True, help="Read profiles directly; build and read no columnar cache.")
@click.version_option(package_name="nsys-analytics")
def cli(debug: bool, reexport: bool, no_cache: bool) -> None:
    """Answers from NVIDIA Nsight Systems profiles (.sqlite exports, .nsys-rep reports).

    \b
    Examples:
      nsys-analytics info run.sqlite
      nsys-analytics kernels run.sqlite --limit 10
      nsys-analytics sql run.sqlite "SELECT name, count(*) FROM kernels GROUP BY name"
      nsys-analytics schema kernels

    Exit codes: 0 success, 1 bad or incomplete profile, 2 usage error, 3 internal error,
    4 `diagnose --fail-on` met a finding that severe, or `runs gate` a regression, 130 interrupted (Ctrl-C).
    """
    from ..data import source

    source.reexport_reports(reexport)
    if no_cache:
        from ..data.cache.folder import disable

        disable()


def escape_controls(text: str) -> str:
    """An error's text on one line (output.render's, imported only when an error is shown)."""
    from ..output.render import escape_controls as escape

    return escape(text)


def main() -> None:
    global OWN_PROCESS
    OWN_PROCESS = True
    try:
        # elapsed time of long work, on a terminal only; of a run being recorded (replay.py) not into the record
        progress.enable(getattr(sys.stderr, "original", None) or sys.stderr)
        interrupts.install()
        cli(prog_name="nsys-analytics")
    except NsysAnalyticsError as e:  # raised while parsing options (e.g. a bad --start)
        click.secho(f"Error: {escape_controls(str(e))}", fg="red", err=True)
        sys.exit(e.exit_code if e.exit_code else EXIT_DATA_ERROR)
    except KeyboardInterrupt:  # before or after a command ran (e.g. while importing)
        click.echo("Interrupted.", err=True)
        sys.exit(EXIT_INTERRUPTED)


def run(before_exit=None) -> None:
    """The `nsys-analytics` command: main(), then the process ends at once where nothing is left for the
    interpreter's teardown to do (`_end`). `before_exit(code)`: called with the exit code first."""
    try:
        main()
    except SystemExit as e:
        _end(e.code, before_exit)
    _end(0, before_exit)


def _end(code, before_exit=None) -> None:
    """Exit with `code` without the interpreter's teardown, which frees every module's objects one by one: 0.05-0.1 s
    after SQLAlchemy's import, a fifth of a `runs list`. Every file, profile and catalog was closed by its command
    and the output is flushed here; where something would still wait on the teardown (a thread that is not a
    daemon, a child process, a Dask client; atexit joins them) or the code is not a number, a normal exit."""
    import os
    import threading

    if before_exit is not None:
        before_exit(code)
    pending = any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread())
    if "multiprocessing" in sys.modules:
        pending = pending or bool(sys.modules["multiprocessing"].active_children())
    if pending or "distributed" in sys.modules or not isinstance(code, (int, type(None))):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or a stream closed on purpose: nothing to keep
            pass
    os._exit(code or 0)
