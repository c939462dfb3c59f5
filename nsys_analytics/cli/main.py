"""Entry point: the command group, --debug, and the one place where errors become exit codes."""

from __future__ import annotations

import importlib
import sys

import click

from ..core import progress
from ..data import source
from ..core.errors import EXIT_DATA_ERROR, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, NsysAnalyticsError
from ..output.render import escape_controls
from . import interrupts, outputs

OWN_PROCESS = False  # main() runs: the process is this one command's (`runs add` may fork: catalog/writer.py)


# command -> module in nsys_analytics.cli, imported only when that command runs: a command's start-up
# should not pay for the imports of the others (pandas, matplotlib, ncu_report).
COMMANDS = {
    "info": "capabilities.info.info_cmd",
    "kernels": "capabilities.kernels.kernels_cmd",
    "sql": "capabilities.query.sql_cmd",
    "schema": "capabilities.query.schema_cmd",
    "nvtx": "capabilities.nvtx.nvtx_cmd",
    "nvtx-kernels": "capabilities.nvtx.nvtx_kernels_cmd",
    "nvtx-gpu": "capabilities.nvtx.nvtx_gpu_cmd",
    "classify": "capabilities.categories.classify_cmd",
    "breakdown": "capabilities.breakdown.breakdown_cmd",
    "attention": "capabilities.attention.attention_cmd",
    "report": "capabilities.assignment.report_cmd",
    "diagnose": "capabilities.diagnose.diagnose_cmd",
    "ncu": "capabilities.ncu.ncu_cmd",
    "ranks": "capabilities.ranks.ranks_cmd",
    "nccl": "capabilities.ranks.nccl_cmd",
    "timeline": "capabilities.visual.timeline_cmd",
    "export": "capabilities.visual.export_cmd",
    "html": "capabilities.visual.html_cmd",
    "diff": "capabilities.diff.diff_cmd",
    "runs": "capabilities.catalog.runs_cmd",
    "cache": "cli.cache_cmd",
    "profile": "capabilities.collect.profile_cmd",
}
# Each command's first help line, for `--help`: listing the commands must not import them all (pandas,
# matplotlib, ncu_report: half a second). tests/test_startup.py checks them against the commands.
SUMMARIES = {
    "info": "What a profile holds: nsys version, capture, GPUs, processes, row counts, and what is missing.",
    "kernels": "Top kernels by total GPU time, equal to `nsys stats --report cuda_gpu_kern_sum`.",
    "sql": "Run SQL over the normalized views (see `nsys-analytics schema`).",
    "schema": "The normalized views and their columns, with what each column means.",
    "nvtx": "Time per NVTX range name, equal to `nsys stats --report nvtx_sum`.",
    "nvtx-kernels": "GPU time of the kernels in each NVTX range, equal to `nsys stats --report nvtx_kern_sum`.",
    "nvtx-gpu": "NVTX ranges projected onto the GPU, equal to `nsys stats --report nvtx_gpu_proj_sum`.",
    "classify": "Each kernel name with its category (matmul, attention, softmax, ...) and the rule that matched.",
    "breakdown": "GPU time by kernel category, matmul vs non-matmul, and the heaviest non-matmul kernels.",
    "attention": "GPU time of QK^T, softmax and attention·V per attention instance, with FLOPs, TFLOP/s and bytes.",
    "report": "Assignment-style profiling report: (a) forward time, (b) heaviest kernel, (c) non-matmul kernels, "
              "(d) inference vs training categories, (e) attention softmax vs matmul.",
    "diagnose": "Why the GPU waits: idle gaps, launch overhead, synchronous and pageable copies, a CPU-bound loop.",
    "ncu": "Nsight Compute metrics per kernel, from an .ncu-rep or an `ncu --csv --page raw` export.",
    "ranks": "Distributed training, rank by rank: step time, GPU busy, compute, communication, overlap, and time "
             "waiting in collectives for other ranks; names the straggler and the range where it loses the time.",
    "nccl": "NCCL collectives over all ranks and per rank: NCCL's calls as the `nccl_sum` recipe (its NVTX ranges), "
            "or the GPU time of its kernels (ncclDevKernel_* / ncclKernel_*) per operation with --by op.",
    "timeline": "A timeline picture: NVTX ranges and CUDA API calls per thread, kernels (coloured by category), "
                "copies, memsets and CUDA graph launches per GPU stream, on a time axis in ms.",
    "export": "Hand a profile to other tools: Perfetto / chrome://tracing, or Parquet for pandas, polars, Spark.",
    "html": "One self-contained HTML page (no network needed to view it): per profile a headline, its info, the top "
            "kernels, GPU time by category with a plot, NVTX ranges with their GPU projection, and the diagnose "
            "findings, each with a timeline of its worst window.",
    "diff": "Did my change make it faster, and where: BASE against NEW, per kernel, category, NVTX range and rank.",
    "runs": "A catalog of runs: store what the reports compute for a profile, compare runs later, gate CI on them.",
    "cache": "The columnar cache: profiles' event tables copied once into DuckDB files that later commands read.",
    "profile": "Profile a program with nsys (or ncu) using the options these reports need, export SQLite, and print "
               "the headline: what the profile holds, its top kernels and its top findings.",
}


class ErrorHandlingGroup(click.Group):
    """Turns library errors into `Error: …` and a documented exit code; --debug shows the traceback.

    Commands are loaded lazily from COMMANDS."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        return outputs.guarded(importlib.import_module(f"nsys_analytics.{COMMANDS[name]}").command)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of --help, from SUMMARIES, without importing any command."""
        from click.utils import make_default_short_help

        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(SUMMARIES.get(name) or self._summary(ctx, name), limit))
                for name in COMMANDS]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _summary(self, ctx: click.Context, name: str) -> str:
        """A command missing from SUMMARIES: its own help line (importing it)."""
        return self.get_command(ctx, name).get_short_help_str(limit=1000)

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
    import duckdb

    from ..data import bad_values, database

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
    source.reexport_reports(reexport)
    if no_cache:
        from ..data.cache.folder import disable

        disable()


def main() -> None:
    global OWN_PROCESS
    OWN_PROCESS = True
    try:
        progress.enable(sys.stderr)  # elapsed time of long work, on a terminal only
        interrupts.install()
        cli(prog_name="nsys-analytics")
    except NsysAnalyticsError as e:  # raised while parsing options (e.g. a bad --start)
        click.secho(f"Error: {escape_controls(str(e))}", fg="red", err=True)
        sys.exit(e.exit_code if e.exit_code else EXIT_DATA_ERROR)
    except KeyboardInterrupt:  # before or after a command ran (e.g. while importing)
        click.echo("Interrupted.", err=True)
        sys.exit(EXIT_INTERRUPTED)


def run() -> None:
    """The `nsys-analytics` command: main(), then the process ends at once where nothing is left for the
    interpreter's teardown to do (`_end`)."""
    try:
        main()
    except SystemExit as e:
        _end(e.code)
    _end(0)


def _end(code) -> None:
    """Exit with `code` without the interpreter's teardown, which frees every module's objects one by one: 0.05-0.1 s
    after SQLAlchemy's import, a fifth of a `runs list`. Every file, profile and catalog was closed by its command
    and the output is flushed here; where something would still wait on the teardown (a thread that is not a
    daemon, a child process, a Dask client; atexit joins them) or the code is not a number, a normal exit."""
    import os
    import threading

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
