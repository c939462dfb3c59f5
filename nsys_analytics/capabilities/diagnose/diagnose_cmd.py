"""`nsys-analytics diagnose`."""

from __future__ import annotations

import click

from . import RULES, NsysOptions, Thresholds, Window, diagnose
from .findings import rank
from .render import DiagnoseOutput
from ...core.errors import EXIT_FINDINGS
from ...core.filters import parse_time_ns
from ..nvtx.steady import STEP_RANGE, WARMUP_RANGE, WINDOWS
from ...cli.options import PROFILE_ARG, output_options, table_option
from ...cli.profiles import note_one_rank, open_profile
from ...output.write import write



@click.command("diagnose")
@PROFILE_ARG
@click.option("--rule", "rules", multiple=True, type=click.Choice(RULES),
              help="Run only this rule (repeatable). Default: all.")
@click.option("--start", help="Only what overlaps the time window from here (e.g. 2s, 150ms), like nsys' start=.")
@click.option("--end", help="... up to here (e.g. 3s), like nsys' end=.")
@click.option("--range", "range_name", metavar="NAME",
              help="Only the time span of the NVTX range(s) NAME (text, ':text', 'domain:text' or a glob): "
                   "from the first matching instance's start to the last one's end.")
@click.option("--window", "scope", type=click.Choice(WINDOWS), default="steady", show_default=True,
              help="steady: the step ranges after the warm-up, when the profile has them (else the whole capture); "
                   "all: the whole capture, as nsys analyze. --start/--end/--range replace it.")
@click.option("--step-range", default=STEP_RANGE, show_default=True, help="NVTX range(s) that mark steps.")
@click.option("--warmup-range", default=WARMUP_RANGE, show_default=True,
              help="NVTX range holding warm-up work, left out of the steady state.")
@click.option("--warmup-steps", type=click.IntRange(min=0), default=0, show_default=True,
              help="The first N step ranges are warm-up too (left out of the steady state).")
@click.option("--graphs/--no-graphs", default=True, show_default=True,
              help="Count whole CUDA graph executions (nsys' default --cuda-graph-trace=graph) as GPU work; "
                   "--no-graphs leaves them out as nsys analyze does.")
@click.option("--rows", type=int, default=50, show_default=True,
              help="Rows shown per nsys rule; -1 for all (the findings' totals count every row).")
@click.option("--gap", "gap_ms", type=click.IntRange(min=0), default=500, show_default=True,
              help="gpu_gaps: shortest gap reported (ms), like nsys' gap=.")
@click.option("--threshold", "threshold_pct", type=click.IntRange(0, 100), default=50, show_default=True,
              help="gpu_time_util: report chunks below this in-use %, like nsys' threshold=.")
@click.option("--chunks", type=click.IntRange(1, 1000), default=30, show_default=True,
              help="gpu_time_util and our rules: chunks per GPU span, like nsys' chunks=.")
@click.option("--short-kernel", "short_kernel_us", type=float, default=10.0, show_default=True,
              help="launch_bound: a kernel shorter than this many microseconds is short.")
@output_options
@table_option("findings", "findings or an nsys rule's rows as nsys analyze writes them: gpu_gaps, gpu_time_util, "
                          "cuda_memcpy_async, ...; with one --rule of nsys', that rule's")
@click.option("--fail-on", type=click.Choice(["warning", "error"]),
              help=f"Exit with code {EXIT_FINDINGS} when a finding is this severe or worse (for CI).")
def command(profile, rules, start, end, range_name, scope, step_range, warmup_range, warmup_steps, graphs, rows, gap_ms,
            threshold_pct, chunks, short_kernel_us, fmt, table, output, fail_on):
    """Why the GPU waits: idle gaps, launch overhead, synchronous and pageable copies, a CPU-bound loop.

    Runs nsys' expert rules (gpu_gaps, gpu_time_util, cuda_memcpy_async, cuda_memcpy_sync,
    cuda_memset_sync, cuda_api_sync; same output as `nsys analyze` with --window all) and rules beyond them
    (launch_bound, gpu_starved, copy_bottleneck, gpu_utilization). Findings come most GPU time at stake first,
    each with the NVTX ranges it happens in; rules whose data the profile lacks are SKIPPED with the nsys
    option that captures it. By default only the steady state is diagnosed (the `step_*` ranges after the
    warm-up, when the profile has them): start-up and warm-up idle time is no finding. Exit code 1 when
    nothing could be checked (no CUDA data in the window).

    \b
    Examples:
      nsys-analytics diagnose run.sqlite
      nsys-analytics diagnose run.sqlite --window all --rule gpu_gaps --gap 100 --format csv
      nsys-analytics diagnose run.sqlite --start 2s --end 4s --format markdown
      nsys-analytics diagnose run.sqlite --range 'step_*'
      nsys-analytics diagnose run.sqlite --format json --fail-on error   # exit 4 on an error finding
    """
    window = Window(parse_time_ns(start) if start else 0, parse_time_ns(end) if end else Window.to_ns)
    nsys_options = NsysOptions(None if rows < 0 else rows, gap_ms, threshold_pct, chunks)
    thresholds = Thresholds(chunks=chunks, short_kernel_us=short_kernel_us)
    with open_profile(profile) as p:
        note_one_rank(profile, p, by_rank="diagnose --by-rank")
        report = diagnose(p, tuple(rules) or RULES, window, nsys_options, thresholds, range_name, scope, step_range,
                          warmup_range or None, graphs, warmup_steps)
    if fmt in ("csv", "parquet"):
        for line in report.skipped:  # the table format prints them; CSV and Parquet hold the tables alone
            click.echo(line, err=True)
    write(DiagnoseOutput(report), fmt, output, table, inputs=[profile])
    worst = report.worst_severity()
    if fail_on and worst and rank(worst) >= rank(fail_on):
        raise click.exceptions.Exit(EXIT_FINDINGS)

