"""`nsys-analytics nvtx-gpu`."""

from __future__ import annotations

import click

from .report import nvtx_gpu_projection, nvtx_gpu_projection_summary
from ...cli.options import GRAPHS_OPTION, PROFILE_ARG, attribution_options, output_options
from ...cli.profiles import open_profile
from ...output.write import write


@click.command("nvtx-gpu")
@PROFILE_ARG
@click.option("--trace", is_flag=True,
              help="One row per range instance, equal to `nsys stats --report nvtx_gpu_proj_trace`.")
@attribution_options
@GRAPHS_OPTION
@output_options
def command(profile, trace, attribution, exclusive, graphs, fmt, output):
    """NVTX ranges projected onto the GPU, equal to `nsys stats --report nvtx_gpu_proj_sum`.

    A range's projection runs from the GPU start of the first kernel, copy or memset it launched to the
    GPU end of the last one.

    \b
    Examples:
      nsys-analytics nvtx-gpu run.sqlite
      nsys-analytics nvtx-gpu run.sqlite --trace --format csv -o nvtx_gpu_proj_trace.csv
      nsys-analytics nvtx-gpu run.sqlite --attribution process
    """
    with open_profile(profile) as p:
        if trace:
            write(nvtx_gpu_projection(p, attribution, exclusive, graphs, stream=True), fmt, output, inputs=[profile])
        else:
            write(nvtx_gpu_projection_summary(p, attribution, exclusive, graphs), fmt, output, inputs=[profile])
