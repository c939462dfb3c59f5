"""`nsys-analytics nccl`."""

from __future__ import annotations

import math

import click
import pandas as pd

from ...data.engine import make_engine
from .render import SetOutput
from ...cli.many import check_output, only_table, set_options
from ...cli.options import output_options
from ...output.write import write


@click.command("nccl")
@click.argument("profiles", nargs=-1, required=True, metavar="PROFILES...")
@set_options
@click.option("--by", type=click.Choice(["call", "op", "name", "nvtx_range"]), default="call", show_default=True,
              help="call: CPU time of NCCL calls from its NVTX ranges (= the nccl_sum recipe); op, name, nvtx_range: "
                   "GPU time of NCCL kernels per operation (AllReduce, ...), kernel name or launching NCCL range.")
@click.option("--trace", is_flag=True, help="One row per NCCL kernel (the normalized view) instead of a summary.")
@output_options
def command(profiles, scheduler, jobs, skip_bad, by_rank, combined, per_rank, by, trace, fmt, output):
    """NCCL collectives over all ranks and per rank: NCCL's calls as the `nccl_sum` recipe (its NVTX ranges), or
    the GPU time of its kernels (ncclDevKernel_* / ncclKernel_*) per operation with --by op.

    \b
    Examples:
      nsys-analytics nccl runs/report.*.sqlite
      nsys-analytics nccl runs/ --by op
      nsys-analytics nccl runs/ --by name --format csv -o nccl.csv
      nsys-analytics nccl whole_launch.sqlite --trace --format csv
    """
    from ...data.profile_set import ProfileSet
    from . import sets
    from .summary import SetResult
    from ...core.result import Result

    only = only_table(combined, per_rank)
    engine = make_engine(scheduler, jobs)
    try:
        pset = ProfileSet(list(profiles), engine=engine, skip_bad=skip_bad)
        check_output(output, pset, profiles)
        for line in pset.messages():
            click.echo(line, err=True)
        if trace:
            df = sets.nccl_frame(pset)
            notes = [sets.bytes_note(df)] if len(df) else ["No NCCL kernels (ncclDevKernel_* / ncclKernel_*)."]
            rows = [tuple(_plain(v) for v in r) for r in df.itertuples(index=False, name=None)]
            # a narrow terminal keeps whose kernel, which collective, how long and when, before the name
            keys = ("rank", "op", "duration_ns", "start_ns", "overlap_ns", "name")
            result = SetResult(None, Result(list(df.columns), rows, key_columns=keys), notes)
        elif by == "call":
            result = sets.nccl_sum_set(pset)
        else:
            result = sets.nccl_summary_set(pset, by)
    finally:
        engine.close()
    write(SetOutput(result, only or "all"), fmt, output, inputs=profiles)


def _plain(v):
    if v is pd.NA:
        return None
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and math.isnan(v) else v
