"""`nsys-analytics breakdown`."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import click

from ...output.plotstyle import png_option
from .plot import plot_report
from .ranges import DEFAULT_RANGES
from .render import BreakdownOutput
from .report import BASES, DEFAULT_TOP, breakdown_report
from ..categories.rules import load_rules
from ...core.errors import UsageError
from ..nvtx.steady import STEP_RANGE, WARMUP_RANGE, WINDOWS
from ..categories.classify_cmd import RULES_OPTION
from ...cli.options import kernel_filter_options, output_options, table_option
from ...cli.profiles import note_one_rank, open_profile
from ...output.write import write


@click.command("breakdown")
@click.argument("profiles", nargs=-1, required=True, metavar="PROFILES...",
                type=click.Path(path_type=Path, readable=False))
@click.option("--basis", type=click.Choice(BASES), default="kernel", show_default=True,
              help="What 100 % is: summed kernel time, GPU busy time (union over streams), or the wall window.")
@click.option("--top", type=click.IntRange(min=1), default=DEFAULT_TOP, show_default=True,
              help="How many of the heaviest non-matmul kernels to list.")
@click.option("--kernels-only", is_flag=True, help="Leave memcpy/memset out (by default they count as memory).")
@click.option("--by", type=click.Choice(["range"]),
              help="One column per NVTX range (kernels attributed by launch, on any thread of the process).")
@click.option("--range-names", "range_names", multiple=True, metavar="NAME[,NAME...]",
              help=f"With --by range: the ranges to show (default: the {DEFAULT_RANGES} with the most GPU time).")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), callback=png_option,
              help="Also draw the category shares as stacked bars into FILE.png.")
@click.option("--window", type=click.Choice(WINDOWS), default="steady", show_default=True,
              help="steady: the operations launched inside the step ranges after the warm-up, when the profile has "
                   "them (else the whole capture); all: the whole capture, as nsys stats.")
@click.option("--step-range", default=STEP_RANGE, show_default=True, help="NVTX range(s) that mark steps.")
@click.option("--warmup-range", default=WARMUP_RANGE, show_default=True,
              help="NVTX range holding warm-up work, left out of the steady state.")
@RULES_OPTION
@kernel_filter_options
@output_options
@table_option("categories", "categories, rollup, top; with several profiles top_<profile name>")
def command(profiles, basis, top, kernels_only, by, range_names, plot, window, step_range, warmup_range, rules_files,
            kernel_filter, fmt, output, table):
    """GPU time by kernel category, matmul vs non-matmul, and the heaviest non-matmul kernels.

    PROFILES: one profile, or several (files, globs, a folder: e.g. one export per rank) for one column each,
    side by side; two (e.g. inference, then training) also show the time and the change. Or --by range for one
    column per NVTX range of one profile.

    Percentages are of the basis, printed under every table. By default each profile's steady state is
    broken down (the work launched inside its step_* ranges after the warm-up, as `report` counts it);
    --window all takes the whole capture. The window is printed under every table.

    \b
    Examples:
      nsys-analytics breakdown train.sqlite
      nsys-analytics breakdown forward.sqlite train.sqlite --plot shares.png
      nsys-analytics breakdown runs/ --table rollup        # one column per rank's export
      nsys-analytics breakdown train.sqlite --basis gpu-busy --top 10 --format markdown
      nsys-analytics breakdown train.sqlite --rules my_rules.toml --start 2s --end 3s
      nsys-analytics breakdown train.sqlite --by range --range-names forward,backward,optimizer_step
    """
    profiles = _profiles(profiles, by)
    rules = load_rules(rules_files)
    names = [n.strip() for item in range_names for n in item.split(",") if n.strip()]
    with ExitStack() as stack:
        opened = [stack.enter_context(open_profile(path)) for path in profiles]
        if len(opened) == 1:
            note_one_rank(profiles[0], opened[0])
        report = breakdown_report(opened, basis, rules, top, not kernels_only, by, names or None, window,
                                  step_range, warmup_range or None, kernel_filter)
    write(BreakdownOutput(report), fmt, output, table, inputs=profiles)
    if plot is not None:
        click.echo(f"wrote plot to {plot_report(report, rules.category_names, plot)}", err=True)


def _profiles(items, by: str | None) -> list[Path]:
    """The files to break down: globs and folders of profiles expanded (a parquetdir/arrowdir export is one
    profile); what a folder held besides profiles is named on stderr."""
    from ...data.columnar import is_export_dir
    from ...data.profile_set import expand_inputs, refuse_folder_of_runs

    if len(items) == 1 and (items[0].is_file() or is_export_dir(items[0])):
        return list(items)
    if by:
        raise UsageError("--by range breaks down one profile; give one")
    expanded = expand_inputs(list(items))
    for line in expanded.ignored:
        click.echo(f"ignored {line}", err=True)
    if not expanded.files:
        from ...core.errors import ProfileError

        refuse_folder_of_runs(items)
        raise ProfileError(f"no nsys profile among {', '.join(map(str, items))}; pass .sqlite exports "
                           "(`nsys export --type sqlite`) or .nsys-rep reports")
    return expanded.files
