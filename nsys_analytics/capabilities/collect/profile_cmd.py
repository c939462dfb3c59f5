"""`nsys-analytics profile [OPTIONS] -- COMMAND ...`."""

from __future__ import annotations

from pathlib import Path

import click

from .commands import GRAPH_TRACE, NcuOptions, NsysOptions, Outputs, check_name, default_name
from .tools import find_tool
from ...core.errors import UsageError
from ...cli.options import output_options
from ...output.report import TableReport
from ...output.write import parquet_output, write
from ..catalog.runs_cmd import DB_OPTION, _tags


@click.command("profile", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--name", help="Report name (default: the script's or program's name, e.g. train for train.py).")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Folder for the report files (made if missing).")
@click.option("--force", is_flag=True, help="Replace an existing report of that name (by default: refuse).")
@click.option("--trace", default="cuda,nvtx", show_default=True, help="nsys --trace.")
@click.option("--cuda-graph-trace", type=click.Choice(GRAPH_TRACE), default="node", show_default=True,
              help="CUDA graphs traced per kernel node (node) or as one launch (graph).")
@click.option("--range", "range_name", metavar="NAME",
              help="Capture only inside the first instance of this NVTX range (nsys --capture-range=nvtx).")
@click.option("--nsys-option", "nsys_extra", multiple=True, metavar="ARG", help="More nsys profile options.")
@click.option("--ncu", "use_ncu", is_flag=True, help="Run Nsight Compute (ncu) instead, writing NAME.ncu-rep.")
@click.option("--set", "set_name", metavar="SET", help="With --ncu: ncu --set (basic, detailed, full, ...).")
@click.option("-k", "--kernel", metavar="NAME", help="With --ncu: only kernels of this name (or regex:...).")
@click.option("-c", "--count", type=click.IntRange(min=1), help="With --ncu: profile at most N kernels.")
@click.option("--nvtx-include", multiple=True, metavar="FILTER",
              help="With --ncu: only kernels in these NVTX ranges ('forward/' for a push/pop range).")
@click.option("--ncu-option", "ncu_extra", multiple=True, metavar="ARG", help="More ncu options.")
@click.option("--catalog", is_flag=True, help="Add the run to the run catalog, tagged with git commit, command, "
                                              "host and GPU.")
@DB_OPTION
@click.option("--tag", "tags", multiple=True, metavar="KEY=VALUE", help="With --catalog: one more tag.")
@output_options
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def command(name, directory, force, trace, cuda_graph_trace, range_name, nsys_extra, use_ncu, set_name, kernel,
            count, nvtx_include, ncu_extra, catalog, db, tags, fmt, output, command):
    """Profile a program with nsys (or ncu) using the options these reports need, export SQLite, and print
    the headline: what the profile holds, its top kernels and its top findings.

    nsys runs with --trace=cuda,nvtx --sample=none --cpuctxsw=none --cuda-graph-trace=node; the program's
    and nsys' output go to standard error, the headline to standard output. An existing report is never
    replaced without --force. Exit codes: 1 when nsys/ncu is missing or fails, the program fails, or no
    kernel was captured; 2 on bad options.

    \b
    Examples:
      nsys-analytics profile -- python train.py --steps 5
      nsys-analytics profile --name fwd --dir profiles --range step_3 -- python train.py
      nsys-analytics profile --ncu --set basic -k regex:gemm -c 10 -- python bench.py
      nsys-analytics profile --catalog --tag branch=main -- python train.py
      NSYS=/opt/nvidia/nsight-systems/2025.3.1/bin/nsys nsys-analytics profile -- ./a.out
    """
    command = list(command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("name the program to profile after --, e.g. `nsys-analytics profile -- python train.py`")
    ncu_only = [flag for flag, value in (("--set", set_name), ("-k", kernel), ("-c", count),
                                         ("--nvtx-include", nvtx_include), ("--ncu-option", ncu_extra)) if value]
    if ncu_only and not use_ncu:
        raise UsageError(f"{ncu_only[0]} is an ncu option: add --ncu")
    if tags and not catalog:
        raise UsageError("--tag goes with --catalog")
    if catalog and use_ncu:
        raise UsageError("--catalog stores Nsight Systems runs; it does not go with --ncu")
    extra_tags = _tags(tags)  # checked before the program runs
    if fmt == "parquet":
        parquet_output(output)  # checked before the program runs
    out = Outputs(directory, check_name(name) if name else default_name(command))
    if use_ncu:
        _ncu(out, NcuOptions(set_name, kernel, count, list(nvtx_include), list(ncu_extra)), command, force, fmt,
             output)
        return
    _nsys(out, NsysOptions(trace, cuda_graph_trace, range_name, list(nsys_extra)), command, force, fmt, output,
          (catalog, db, extra_tags))


def _nsys(out, options, command, force, fmt, output, catalog_args) -> None:
    from ... import open as open_profile
    from .report import gpu_names, headline
    from .session import collect_nsys
    from .tags import run_tags

    collected = collect_nsys(find_tool("nsys"), options, out, command, force)
    with open_profile(out.sqlite) as profile:
        tags = run_tags(command, Path.cwd(), gpu_names(profile))
        report = headline(profile, [str(f) for f in collected.files], tags)
    write(report, fmt, output)
    if catalog_args[0]:
        _add_to_catalog(out.sqlite, tags, *catalog_args[1:])


def _ncu(out, options, command, force, fmt, output) -> None:
    from .session import collect_ncu
    from ..ncu.analysis import Options, analyze
    from ..ncu.report import NcuReport
    from ..ncu.table import for_format

    collect_ncu(find_tool("ncu"), options, out, command, force)
    with NcuReport(out.ncu_report) as r:
        result = for_format(analyze(r, Options()), fmt)
    click.echo(f"wrote {out.ncu_report}", err=True)
    write(TableReport(result, "ncu"), fmt, output)


def _add_to_catalog(profile: Path, tags: dict[str, str], db: str | None, extra: dict[str, str]) -> None:
    """`runs add PROFILE --diagnose` with the run's tags (ours first, the user's --tag over them)."""
    from ..catalog.add import summarize_run
    from ..catalog.connect import Catalog
    from ..catalog.data import add_run
    from ..categories import load_rules

    summaries, found = summarize_run([str(profile)], load_rules(None), "none", diagnose=True)
    catalog = Catalog(db)
    run_id, added = add_run(catalog, summaries, {**tags, **extra}, found)
    click.echo(f"{'added to' if added else 'already in'} the run catalog {catalog.name} as run {run_id}", err=True)
