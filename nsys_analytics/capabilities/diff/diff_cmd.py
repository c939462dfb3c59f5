"""`nsys-analytics diff`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from ...output.plotstyle import png_option
from . import ALPHA, ATTRIBUTIONS, TABLES, WINDOWS
from ...core.errors import UsageError
from ...output.options import output_options
from ...cli.rules_option import RULES_OPTION

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
        click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), callback=png_option,
                     help="Also draw the largest kernel and category changes into FILE.png."),
        click.option("--min-effect", "min_effects", multiple=True, metavar="step|kernel=PCT",
                     help="With one run per side, the smallest change of the step time or of the kernel time per "
                          "step called beyond noise (defaults from identical runs, docs/diff.md: kernel=1; step: "
                          "55 % of its time outside GPU kernels plus 1 % of its time in them, else 45)."),
        click.option("--strict", is_flag=True,
                     help="Refuse sides that do not match (runs of different rank counts) instead of warning."),
    ]
    for option in reversed(options):
        f = option(f)
    return output_options(f)


@click.command("diff", context_settings={"ignore_unknown_options": True})
@click.argument("profiles", nargs=-1, required=True)
@click.option("--attribution", type=click.Choice(ATTRIBUTIONS), default="auto", show_default=True,
              help="How kernels are placed in NVTX ranges for the per-range kernel time and variant pairing "
                   "(docs/nvtx.md); none skips it; auto: process up to 300,000 kernels per profile, none beyond "
                   "(the attribution costs about 1.3 s of CPU per million kernels).")
@click.option("--window", type=click.Choice(WINDOWS), default="steady", show_default=True,
              help="steady: every table and the headline cover the steady-state steps, per step (the step-like "
                   "NVTX range family, warm-up left out); all: the whole capture, per run.")
@RULES_OPTION
@diff_options
def command(profiles, attribution, window, rules_files, name_kind, alpha, tables, limit, plot, fmt, output,
            min_effects, strict):
    """Did my change make it faster, and where: BASE against NEW, per kernel, category, NVTX range and rank.

    A one-sentence verdict comes first: the step time and the GPU kernel time per step of the steady state, which
    of them moved beyond run-to-run noise, and where (a fused kernel replaced by its unfused form is told as
    such). Several runs per side, A1 A2 A3 --vs B1 B2 B3 (or globs), are compared run by run (Welch's t on the
    runs' means); with one run per side a change must reach a minimum effect (docs/diff.md). Kernels renamed only
    in template arguments or launch configuration (a new cuBLAS tile, cutlass -> nvjet) pair as "variant" when
    category and NVTX range agree. Several profiles per side of one run (one per rank): --base A B ... --new C D
    ... or a folder of the run's rank files (ranks paired by the number after "rank" in the file name, else by
    position). See docs/diff.md.

    \b
    Examples:
      nsys-analytics diff before.sqlite after.sqlite
      nsys-analytics diff before.sqlite after.sqlite --name short --plot diff.png
      nsys-analytics diff before.sqlite after.sqlite --format csv --table ranges -o ranges.csv
      nsys-analytics diff a1.sqlite a2.sqlite a3.sqlite --vs b1.sqlite b2.sqlite b3.sqlite
      nsys-analytics diff --base b_rank0.sqlite b_rank1.sqlite --new n_rank0.sqlite n_rank1.sqlite
      nsys-analytics diff before_run/ after_run/       # each a folder of one run's rank files
    """
    from ..categories import load_rules
    from .data import summarize_side
    from .report import build_diff_runs
    from .sides import split_runs

    base_runs, new_runs = split_runs(profiles)
    rules = load_rules(rules_files)
    runs = [*base_runs, *new_runs]
    if all(len(r) == 1 for r in runs):
        # Each profile has its own DuckDB connection: two are read at the same time (DuckDB releases the GIL).
        with ThreadPoolExecutor(max_workers=2) as pool:
            done = list(pool.map(lambda r: summarize_side(r, rules, attribution, window=window, split=True), runs))
    else:
        done = [summarize_side(r, rules, attribution, window=window, split=True) for r in runs]
    report = build_diff_runs(done[:len(base_runs)], done[len(base_runs):], name_kind, alpha,
                             parse_min_effects(min_effects), strict)
    write_report(report, fmt, tables, limit, output, plot)


def parse_min_effects(items: tuple[str, ...]) -> dict[str, float]:
    """`--min-effect step=10 --min-effect kernel=0.5` -> {'step': 10.0, 'kernel': 0.5}."""
    import math

    from ...core.errors import UsageError

    out = {}
    for item in items:
        kind, _, value = item.partition("=")
        try:
            pct = float(value)
        except ValueError:
            pct = math.nan
        if kind not in ("step", "kernel") or not math.isfinite(pct) or pct < 0:
            raise UsageError(f"--min-effect {item!r}: write step=PCT or kernel=PCT, PCT a percentage >= 0")
        out[kind] = pct
    return out


_ONLY_WITH = {"ranks": "several ranks per side (--base A B --new C D)",
              "range_categories": "kernels attributed to NVTX ranges (--attribution other than none)",
              "runs": "several runs per side (A1 A2 --vs B1 B2)"}


def write_report(report, fmt, tables, limit, output, plot) -> None:
    from .render import DiffOutput
    from ...output.write import write

    missing = [t for t in tables if t not in report.tables()]
    if missing:  # a table this comparison has no rows for: say so, rather than print nothing
        raise UsageError(f"--table {missing[0]}: this comparison has no such table; it comes with "
                         f"{_ONLY_WITH.get(missing[0], 'other inputs')}")

    write(DiffOutput(report, tables, limit or None), fmt, output, tables[0] if len(tables) == 1 else None)
    if plot is not None:
        from .plot import plot_report

        click.echo(f"wrote plot to {plot_report(report, plot)}", err=True)
