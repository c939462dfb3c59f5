"""`nsys-analytics kernels`."""

from __future__ import annotations

import click

from .report import kernel_summary
from ...cli.options import GRAPHS_OPTION, PROFILE_ARG, kernel_filter_options, output_options
from ...cli.profiles import open_profile
from ...output.write import write


@click.command("kernels")
@PROFILE_ARG
@click.option("--limit", type=click.IntRange(min=1), help="Show only the N heaviest kernels.")
@click.option("--by-launch-config", is_flag=True,
              help="One row per kernel name and grid/block (nsys' cuda_gpu_kern_gb_sum).")
@kernel_filter_options
@GRAPHS_OPTION
@output_options
def command(profile, limit, by_launch_config, kernel_filter, graphs, fmt, output):
    """Top kernels by total GPU time, equal to `nsys stats --report cuda_gpu_kern_sum`.

    \b
    Examples:
      nsys-analytics kernels run.sqlite --limit 10
      nsys-analytics kernels run.sqlite --name short --format csv -o kernels.csv
      nsys-analytics kernels run.sqlite --match 'gemm|nvjet' --start 2s --end 3s
      nsys-analytics kernels run.sqlite --by-launch-config --format markdown
    """
    with open_profile(profile) as p:
        write(kernel_summary(p, kernel_filter, by_launch_config, limit, graphs), fmt, output, inputs=[profile])
