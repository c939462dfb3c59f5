"""Entry point: the command group, --debug, and the one place where errors become exit codes."""

from __future__ import annotations

import importlib
import sys

import click

from .. import progress
from ..errors import EXIT_DATA_ERROR, NsysAnalyticsError

EXIT_INTERNAL_ERROR = 3
EXIT_INTERRUPTED = 130


# command -> module in nsys_analytics.cli, imported only when that command runs: a command's start-up
# should not pay for the imports of the others (pandas, matplotlib, ncu_report).
COMMANDS = {
    "info": "info_cmd",
    "kernels": "kernels_cmd",
    "sql": "sql_cmd",
    "schema": "schema_cmd",
    "nvtx": "nvtx_cmd",
    "nvtx-kernels": "nvtx_kernels_cmd",
    "nvtx-gpu": "nvtx_gpu_cmd",
    "classify": "classify_cmd",
    "breakdown": "breakdown_cmd",
    "attention": "attention_cmd",
    "report": "report_cmd",
    "diagnose": "diagnose_cmd",
    "ncu": "ncu_cmd",
    "ranks": "ranks_cmd",
    "nccl": "nccl_cmd",
    "timeline": "timeline_cmd",
    "export": "export_cmd",
    "html": "html_cmd",
    "diff": "diff_cmd",
    "runs": "runs_cmd",
}


class ErrorHandlingGroup(click.Group):
    """Turns library errors into `Error: …` and a documented exit code; --debug shows the traceback.

    Commands are loaded lazily from COMMANDS."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        return importlib.import_module(f"{__package__}.{COMMANDS[name]}").command

    def invoke(self, ctx: click.Context):
        debug = ctx.params.get("debug") or "--debug" in sys.argv
        try:
            return super().invoke(ctx)
        except NsysAnalyticsError as e:
            if debug:
                raise
            click.secho(f"Error: {e}", fg="red", err=True)
            ctx.exit(e.exit_code)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            sys.stderr.close()  # output piped into `head`: stop quietly
            ctx.exit(0)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as e:  # a bug: still one line, with the way to learn more
            if debug:
                raise
            click.secho(f"Error: internal error: {type(e).__name__}: {e} (re-run with --debug)", fg="red",
                        err=True)
            ctx.exit(EXIT_INTERNAL_ERROR)


@click.group(cls=ErrorHandlingGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show the full traceback on errors.")
@click.version_option(package_name="nsys-analytics")
def cli(debug: bool) -> None:
    """Answers from NVIDIA Nsight Systems profiles (.sqlite exports, .nsys-rep reports).

    \b
    Examples:
      nsys-analytics info run.sqlite
      nsys-analytics kernels run.sqlite --limit 10
      nsys-analytics sql run.sqlite "SELECT name, count(*) FROM kernels GROUP BY name"
      nsys-analytics schema kernels

    Exit codes: 0 success, 1 bad or incomplete profile, 2 usage error, 3 internal error,
    4 `diagnose --fail-on` met a finding that severe, or `runs gate` a regression.
    """


def main() -> None:
    progress.enable(sys.stderr)  # elapsed time of long work, on a terminal only
    try:
        cli(prog_name="nsys-analytics")
    except NsysAnalyticsError as e:  # raised while parsing options (e.g. a bad --start)
        click.secho(f"Error: {e}", fg="red", err=True)
        sys.exit(e.exit_code if e.exit_code else EXIT_DATA_ERROR)
