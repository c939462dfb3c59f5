"""`nsys-analytics ranks`."""

from __future__ import annotations

import sys

import click

from .render import RanksOutput
from ...cli.many import check_output
from ...core.words import plural
from ...data.engine import SCHEDULER_ENV, make_engine
from ...output.options import output_options
from ...output.write import write


@click.command("ranks")
@click.argument("profiles", nargs=-1, required=True, metavar="PROFILES...")
@click.option("--scheduler", metavar="ADDRESS", envvar=SCHEDULER_ENV,
              help=f"Run per-file work on a Dask cluster (tcp://HOST:8786; or set {SCHEDULER_ENV}).")
@click.option("--jobs", type=click.IntRange(min=1), help="Local worker processes (default: one per core).")
@click.option("--skip-bad", is_flag=True, help="Go on without profiles that cannot be read (named on stderr).")
@click.option("--table", type=click.Choice(["summary", "steps", "phases", "collectives", "findings"]),
              help="Show only this table (CSV writes one table: summary by default; the collectives, a row per NCCL "
                   "kernel and rank, only when named).")
@click.option("--strict", is_flag=True, help="Refuse files that may not be the ranks of one job (different launches "
                                             "or rendezvous, WORLD_SIZE, sessions far apart) instead of warning.")
@output_options
def command(profiles, scheduler, jobs, skip_bad, table, strict, fmt, output):
    """Distributed training, rank by rank: step time, GPU busy, compute, communication, overlap, and time waiting
    in collectives for other ranks; names the straggler and the range where it loses the time.

    PROFILES: one export per rank (files, globs or a folder), or one report of the whole launch (split by process).

    \b
    Examples:
      nsys-analytics ranks runs/report.*.sqlite
      nsys-analytics ranks runs/ --table steps --format csv -o steps.csv
      nsys-analytics ranks whole_launch.sqlite
      nsys-analytics ranks runs/ --strict        # refuse files of different jobs
      nsys-analytics ranks runs/ --scheduler tcp://10.0.0.5:8786
    """
    from ...core.errors import ProfileError
    from ...data.profile_set import ProfileSet
    from .sets import ranks_report as build

    engine = make_engine(scheduler, jobs)
    try:
        pset = ProfileSet(list(profiles), engine=engine, skip_bad=skip_bad)
        if strict and pset.mismatches:
            raise ProfileError(f"{pset.mismatches[0]}; give the rank files of one run (without --strict: a warning)")
        check_output(output, pset, profiles)
        # the set's warnings head the report where it is printed as text on a terminal: said there once, not
        # twice; on stderr too where the report goes elsewhere (a file, a pipe), for the user to see
        in_head = fmt in ("table", "markdown") and not table and not output and sys.stdout.isatty()
        for line in pset.messages():
            if not (in_head and line in pset.warnings):
                click.echo(line, err=True)
        report = build(pset)
    finally:
        engine.close()
    # the set's warnings (files of several jobs, a partial set) in the notes of every format, not on stderr alone
    head = [f"{plural(len(pset), 'rank')} (rank ids from the {pset.rank_source})", *pset.warnings, *report.notes]
    write(RanksOutput(report, head, table), fmt, output, table, inputs=profiles)
