"""`nsys-analytics ncu`."""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from ...core.errors import UsageError
from ...output.plotstyle import png_option
from .analysis import AGGREGATIONS, COMBINE, GROUP_BY, Options, analyze
from .expr import parse_derive
from .report import NcuReport
from .table import UNITS, for_format
from ...cli.options import output_options
from ...output.write import write

PLOT_IMPLIES_NVTX = "--plot and --normalize-against compare annotations"


@click.command("ncu")
@click.argument("report", type=click.Path(path_type=Path, readable=False))
@click.option("--metrics", help="Comma-separated metric names (or ncu_summary columns) instead of the headline set.")
@click.option("--group-by", type=click.Choice(GROUP_BY),
              help="One row per kernel launch (none, the default), per kernel name, or per NVTX annotation and "
                   "configuration (nvtx).")
@click.option("--agg", type=click.Choice(AGGREGATIONS), default="mean", show_default=True,
              help="How --group-by combines the values of a group.")
@click.option("--derive", "derive", multiple=True, metavar="NAME=EXPR",
              help="A derived column: arithmetic on metric names, parameters and columns, in base units "
                   "(e.g. tflops=2*M*N*K/gpu__time_duration.sum/1e3). Repeatable.")
@click.option("--config-regex", metavar="REGEX",
              help="Read parameters from range names with this regex's named groups (default: name[K=V,...]).")
@click.option("--combine", type=click.Choice(COMBINE),
              help="Combine the kernels of one range instance (consecutive kernels with the same NVTX stack).")
@click.option("--normalize-against", metavar="ANNOTATION",
              help="Ratios to this annotation at the same configuration (implies --group-by nvtx).")
@click.option("--speedup", is_flag=True,
              help="With --normalize-against: baseline / value instead of value / baseline.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), callback=png_option,
              help="Write a PNG of a column against a parameter, one line per annotation (implies --group-by nvtx).")
@click.option("--plot-x", metavar="PARAM", help="Parameter on the x axis (default: the first).")
@click.option("--plot-y", metavar="COLUMN", help="Column on the y axis (default: the last, e.g. a derived one).")
@click.option("--nsys", "nsys_profile", type=click.Path(path_type=Path, readable=False),
              help="An nsys profile of the same program: add each kernel's timeline duration and its name's totals.")
@click.option("--match", help="Only kernels whose name matches this regular expression.")
@click.option("--units", type=click.Choice(UNITS), default="auto", show_default=True,
              help="auto: one unit per column as ncu prints them (us, Kbyte, Ghz); base: ns, byte, hz. "
                   "Default: auto in tables, base in CSV, JSON and Parquet (stable column names, full precision).")
@click.option("--list-metrics", is_flag=True, help="List the report's metrics with their base units and exit.")
@output_options
def command(report, metrics, group_by, agg, derive, config_regex, combine, normalize_against, speedup, plot_path,
            plot_x, plot_y, nsys_profile, match, units, list_metrics, fmt, output):
    """Nsight Compute metrics per kernel, from an .ncu-rep or an `ncu --csv --page raw` export.

    One row per profiled kernel: duration, SM and memory throughput, occupancy, registers and the other
    headline metrics the report has. Range names such as `matmul[M=1024,N=64]` give an annotation and
    parameters (nsight-python style) for --group-by nvtx, --derive, --normalize-against and --plot.

    \b
    Examples:
      nsys-analytics ncu matmul.ncu-rep
      nsys-analytics ncu matmul.ncu-rep --metrics gpu__time_duration.sum,launch__registers_per_thread
      nsys-analytics ncu matmul.ncu-rep --group-by nvtx --combine sum \\
          --derive "tflops=2*M*N*K/gpu__time_duration.sum/1e3" --plot tflops.png
      nsys-analytics ncu matmul.ncu-rep --group-by nvtx --normalize-against matmul --speedup
      nsys-analytics ncu matmul.ncu-rep --nsys run.sqlite --format csv -o joined.csv
      nsys-analytics ncu raw.csv --units base --format json
    """
    units_source = click.get_current_context().get_parameter_source("units")
    if (normalize_against or plot_path) and group_by not in (None, "nvtx"):
        raise UsageError(f"{PLOT_IMPLIES_NVTX}: use them with --group-by nvtx")
    if nsys_profile and group_by not in (None, "none"):
        raise UsageError("--nsys adds columns per kernel launch: use it without --group-by")
    options = Options(
        metrics=metrics.split(",") if metrics else None,
        group_by=group_by or ("nvtx" if normalize_against or plot_path else "none"),
        agg=agg, derive=dict(_derived(spec) for spec in derive), combine=combine,
        normalize_against=normalize_against, speedup=speedup, config_regex=config_regex, match=match,
    )
    with NcuReport(report) as r:
        if list_metrics:
            write(r.run_file("ncu", "metric_catalog"), fmt, output)
            return
        analysis = analyze(r, options)
        if nsys_profile:
            from .nsys_join import add_columns, join_nsys

            add_columns(analysis, join_nsys(r, nsys_profile))
    if plot_path:
        _plot(analysis, plot_path, plot_x, plot_y)
    write(for_format(analysis, fmt, None if units_source == ParameterSource.DEFAULT else units), fmt, output)


def _derived(spec: str) -> tuple[str, str]:
    derived = parse_derive(spec)
    return derived.name, derived.expression


def _plot(analysis, path: Path, x: str | None, y: str | None) -> None:
    from .plot import choose_axes, plot

    x, y = choose_axes(analysis, x, y)
    lines = plot(analysis, path, x, y)
    click.echo(f"wrote {path}: {y} against {x}, {lines} annotation(s)", err=True)
