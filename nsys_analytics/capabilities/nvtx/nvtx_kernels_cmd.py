"""`nsys-analytics nvtx-kernels`."""

from __future__ import annotations

import click

from ...core.filters import NAME_KINDS
from .report import nvtx_kernel_summary, nvtx_range_instances
from ...cli.options import GRAPHS_OPTION, PROFILE_ARG, attribution_options, output_options
from ...cli.profiles import open_profile
from ...output.write import write


@click.command("nvtx-kernels")
@PROFILE_ARG
@click.option("--name", "name_kind", type=click.Choice(NAME_KINDS), default="demangled", show_default=True,
              help="Kernel name: demangled (nsys' default), short (nsys :base) or mangled (nsys :mangled).")
@attribution_options
@click.option("--per-instance", is_flag=True,
              help="One row per range instance (each step_3, each forward) with its kernels' GPU time, and the "
                   "mean and spread over the instances of its name.")
@GRAPHS_OPTION
@output_options
def command(profile, name_kind, attribution, exclusive, per_instance, graphs, fmt, output):
    """GPU time of the kernels in each NVTX range, equal to `nsys stats --report nvtx_kern_sum`.

    By default a kernel belongs to a range when the API call that launched it ran inside the range on the
    range's thread (nsys' rule), and counts in every enclosing range. Kernels that PyTorch's autograd thread
    launches are then in no range: use --attribution process to put them in `backward`.

    \b
    Examples:
      nsys-analytics nvtx-kernels run.sqlite
      nsys-analytics nvtx-kernels run.sqlite --name short --format csv -o nvtx_kern_sum_base.csv
      nsys-analytics nvtx-kernels run.sqlite --attribution process --exclusive
      nsys-analytics nvtx-kernels run.sqlite --per-instance --format markdown
    """
    with open_profile(profile) as p:
        if per_instance:
            result = nvtx_range_instances(p, attribution, exclusive)
        else:
            result = nvtx_kernel_summary(p, attribution, exclusive, name_kind, graphs)
        write(result, fmt, output, inputs=[profile])
