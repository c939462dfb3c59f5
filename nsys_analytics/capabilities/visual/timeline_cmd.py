"""`nsys-analytics timeline`."""

from __future__ import annotations

from pathlib import Path

import click

from ..categories import load_rules
from ...core.files import check_output
from ...core.words import plural
from .plot import check_path, data_width_px, plot_timeline
from .timeline import build_timeline
from ..categories.classify_cmd import RULES_OPTION
from ...cli.options import SINGLE_PROFILE_ARG, window_options
from ...cli.profiles import open_profile


@click.command("timeline")
@SINGLE_PROFILE_ARG
@window_options
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The picture to write: FILE.png or FILE.svg.")
@click.option("--no-api", is_flag=True, help="Leave out the CUDA API rows.")
@click.option("--no-nvtx", is_flag=True, help="Leave out the NVTX rows.")
@RULES_OPTION
def command(profile, window, output, no_api, no_nvtx, rules_files):
    """A timeline picture: NVTX ranges and CUDA API calls per thread, kernels (coloured by category), copies,
    memsets and CUDA graph launches per GPU stream, on a time axis in ms.

    Kernels narrower than two pixels are summed per pixel column into a density band (its height is the share
    of the column the stream was busy), so a window over millions of kernels draws as fast as a small one.
    Without --start/--end/--range the picture spans the profile's GPU work and NVTX ranges.

    \b
    Examples:
      nsys-analytics timeline train.sqlite -o train.png
      nsys-analytics timeline train.sqlite --range step_3 -o step3.svg
      nsys-analytics timeline train.sqlite --range forward --instance 2 -o fwd2.png
      nsys-analytics timeline big.sqlite --start 2.5s --end 2.51s -o ten_ms.png
    """
    output = check_path(check_output(output, [profile]))
    with open_profile(profile) as p:
        timeline = build_timeline(p, window, rules=load_rules(rules_files), width_px=data_width_px(),
                                  api=not no_api, nvtx=not no_nvtx)
    plot_timeline(timeline, output)
    ops = sum(b.count for b in timeline.boxes)
    click.echo(f"wrote {output} ({plural(len(timeline.lanes), 'row')}, {ops:,} operations)",
               err=True)
