"""`nsys-analytics diff`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from ..diff import ALPHA, ATTRIBUTIONS, TABLES
from ..render import FORMATS, PARQUET
from .rules_option import RULES_OPTION

DEFAULT_LIMIT = 20


def diff_options(f):
    """Options `diff` and `runs diff` share."""
    options = [
        click.option("--name", "name_kind", type=click.Choice(["demangled", "short"]), default="demangled",
                     show_default=True, help="Match kernels by demangled name (nsys' default) or short name."),
        click.option("--alpha", type=click.FloatRange(0, 1, min_open=True), default=ALPHA, show_default=True,
                     help="A change is beyond noise when the rank test's p-value is below this."),
        click.option("--table", "tables", multiple=True, type=click.Choice(TABLES),
                     help="Only this table (repeatable). --format csv prints one table: kernels unless chosen."),
        click.option("--limit", type=click.IntRange(min=0), default=DEFAULT_LIMIT, show_default=True,
                     help="Rows per table in table/markdown output (0: all); csv and json have all rows."),
        click.option("--plot", type=click.Path(dir_okay=False, path_type=Path),
                     help="Also draw the largest kernel and category changes into FILE.png."),
        click.option("--format", "fmt", type=click.Choice((*FORMATS, PARQUET)), default="table", show_default=True,
                     help="Output format (parquet: -o FILE.parquet, one file per table, FILE.<table>.parquet, or "
                          "the one --table)."),
        click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write to FILE instead of standard output."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


@click.command("diff", context_settings={"ignore_unknown_options": True})
@click.argument("profiles", nargs=-1, required=True)
@click.option("--attribution", type=click.Choice(ATTRIBUTIONS), default="auto", show_default=True,
              help="How kernels are placed in NVTX ranges for the per-range kernel time and variant pairing "
                   "(docs/nvtx.md); none skips it; auto: process up to 300,000 kernels per profile, none beyond "
                   "(the attribution costs about 1.3 s of CPU per million kernels).")
@RULES_OPTION
@diff_options
def command(profiles, attribution, rules_files, name_kind, alpha, tables, limit, plot, fmt, output):
    """Did my change make it faster, and where: BASE against NEW, per kernel, category, NVTX range and rank.

    A one-sentence verdict comes first (the step time if the profiles have step_N / iteration ranges, else the
    GPU kernel time, with the rank test's p-value), then the tables. Kernels renamed only in template arguments
    or launch configuration (a new cuBLAS tile, cutlass -> nvjet) pair as "variant" when category and NVTX range
    agree. Several profiles per side (one per rank): --base A B ... --new C D ... (ranks paired by the number
    after "rank" in the file name, else by position). See docs/diff.md.

    \b
    Examples:
      nsys-analytics diff before.sqlite after.sqlite
      nsys-analytics diff before.sqlite after.sqlite --name short --plot diff.png
      nsys-analytics diff before.sqlite after.sqlite --format csv --table ranges -o ranges.csv
      nsys-analytics diff --base b_rank0.sqlite b_rank1.sqlite --new n_rank0.sqlite n_rank1.sqlite
    """
    from ..categories import load_rules
    from ..diff.data import summarize_side
    from ..diff.report import build_diff
    from ..diff.sides import split_sides

    base_paths, new_paths = split_sides(profiles)
    rules = load_rules(rules_files)
    if len(base_paths) == 1 and len(new_paths) == 1:
        # Each profile has its own DuckDB connection: both are read at the same time (DuckDB releases the GIL).
        with ThreadPoolExecutor(max_workers=2) as pool:
            base, new = pool.map(lambda path: summarize_side([path], rules, attribution), (base_paths[0], new_paths[0]))
    else:
        base, new = (summarize_side(paths, rules, attribution) for paths in (base_paths, new_paths))
    report = build_diff(base, new, name_kind, alpha)
    write_report(report, fmt, tables, limit, output, plot)


def write_report(report, fmt, tables, limit, output, plot) -> None:
    if fmt == PARQUET:
        from .outputs import write_parquet_tables

        write_parquet_tables(report.tables(), output, (), tables)
    else:
        from ..diff.render import render_report

        chosen = tuple(tables) or (("kernels",) if fmt == "csv" else TABLES)
        from .outputs import emit

        emit(render_report(report, fmt, chosen, limit or None), output)
    if plot is not None:
        from ..diff.plot import plot_report

        click.echo(f"wrote plot to {plot_report(report, plot)}", err=True)
