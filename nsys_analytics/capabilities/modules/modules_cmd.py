"""`nsys-analytics modules`."""

from __future__ import annotations

from pathlib import Path

import click

from ...output.plotstyle import png_option
from .render import ModulesOutput
from .report import DEFAULT_TOP
from .run import modules_report
from ..nvtx.steady import STEP_RANGE, WARMUP_RANGE, WINDOWS
from ...cli.options import PROFILE_ARG, output_options, table_option
from ...cli.profiles import open_profile
from ...output.write import write


@click.command("modules")
@PROFILE_ARG
@click.option("--depth", type=click.IntRange(min=1), help="Fold the module tree to this depth (1: tok, blocks, "
              "head; 2: blocks.0, ...); default: every module.")
@click.option("--top", type=click.IntRange(min=1), default=DEFAULT_TOP, show_default=True,
              help="Kernels listed per module and direction in the kernels table.")
@click.option("--window", type=click.Choice(WINDOWS), default="steady", show_default=True,
              help="steady: the step ranges after the warm-up (ms per step); all: the whole capture.")
@click.option("--step-range", default=STEP_RANGE, show_default=True, help="NVTX range(s) that mark steps.")
@click.option("--warmup-range", default=WARMUP_RANGE, show_default=True,
              help="NVTX range holding warm-up work, left out of the steady state.")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), callback=png_option,
              help="Also draw the modules' forward and backward ms per step as stacked bars into FILE.png "
                   "(over ranks: FILE.rank<N>.png each).")
@output_options
@table_option("modules", "modules, kernels")
def command(profile, depth, top, window, step_range, warmup_range, plot, fmt, output, table):
    """GPU time per model module, forward and backward, per steady-state step.

    Per module (a tree by path, `blocks.2.mlp` inside `blocks.2`): forward and backward GPU ms, their ratio,
    kernels, share of the step's wall time, and TFLOP/s where shapes are known; then the heaviest kernels of each
    (its own and those of the modules inside it, as its time counts them).
    GPU time is that of the kernels launched inside the module's ranges; each kernel counts once, in its innermost
    module, and parents add their children's.

    PROFILES: one profile, or several (files, globs, a folder: one export per rank) for one table with a `rank`
    column.

    The source, best first (the output says which): module ranges from
    `nsys_analytics.torch.instrument(model, layers=True)` (backward as `bwd:<module>`), or a model's own nested
    ranges with `bwd:<name>` ranges (`block_2 > mlp` is module `block_2.mlp`), or PyTorch's
    `torch.autograd.profiler.emit_nvtx(record_shapes=True)` op ranges, whose backward ops map to the forward op
    by `seq` (and to its module range, or by op name where there is none). A profile with neither exits 1.

    \b
    Examples:
      nsys-analytics modules train.sqlite
      nsys-analytics modules train.sqlite --depth 2
      nsys-analytics modules train.sqlite --table kernels --format csv -o kernels.csv
      nsys-analytics modules train.sqlite --window all --format json
      nsys-analytics modules train.sqlite --depth 2 --plot modules.png
      nsys-analytics modules runs/ --depth 2          # one export per rank
    """
    with open_profile(profile) as opened:
        report = modules_report(opened, depth, top, window, step_range, warmup_range or None)
    if plot:
        from .plot import plot_modules

        rank = getattr(profile, "rank", None)  # over ranks: one picture per rank, FILE.rank<N>.png
        target = plot if rank is None else plot.with_name(f"{plot.stem}.rank{rank}{plot.suffix}")
        click.echo(f"wrote {plot_modules(report, target)}", err=True)
    write(ModulesOutput(report), fmt, output, table, inputs=[profile])
