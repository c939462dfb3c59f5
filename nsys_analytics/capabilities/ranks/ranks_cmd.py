"""`nsys-analytics ranks`."""

from __future__ import annotations

import json

import click

from ...data.engine import SCHEDULER_ENV, make_engine
from ...output.render import render, to_json
from ...cli.many import check_output, write_output
from ...cli.options import output_options


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
    from . import report as ranks_report
    from .sets import ranks_report as build

    engine = make_engine(scheduler, jobs)
    try:
        pset = ProfileSet(list(profiles), engine=engine, skip_bad=skip_bad)
        if strict and pset.mismatches:
            raise ProfileError(f"{pset.mismatches[0]}; give the rank files of one run (without --strict: a warning)")
        check_output(output, pset, profiles)
        for line in pset.messages():
            click.echo(line, err=True)
        report = build(pset)
    finally:
        engine.close()
    tables = ranks_report.tables(report, [table] if table else _DEFAULT[fmt if fmt in _DEFAULT else "table"])
    head = [f"{len(pset)} ranks (rank ids from the {pset.rank_source})", *report.notes]
    text = _render(tables, head, fmt, table)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_output(output, text)
        click.echo(f"wrote {output}", err=True)


# The tables each format shows without --table: the collectives (a row per NCCL kernel and rank) only on request.
_DEFAULT = {"table": ("findings", "summary", "phases", "steps"), "csv": ("summary",),
            "json": ("summary", "steps", "phases", "findings")}


def _render(tables, head, fmt, only) -> str:
    if fmt == "json":
        out = {name: json.loads(to_json(t)) for name, t in tables.items()}
        out["notes"] = head
        return json.dumps(out if only is None else {only: out[only]}, indent=2, default=str) + "\n"
    if fmt == "csv":
        return render(tables[only or "summary"], "csv")
    names = [only] if only else list(_DEFAULT["table"])
    titles = {"findings": "Findings", "summary": "Per rank (mean per steady step)",
              "phases": "NVTX ranges inside a step (mean per steady step)", "steps": "Per rank and step",
              "collectives": "Collective instances"}
    parts = [] if only else ["".join(f"_{h}_\n" if fmt == "markdown" else f"{h}\n" for h in head) + "\n"]
    for name in names:
        t = tables[name]
        if name == "findings" and fmt == "table" and t.rows:
            parts.append("Findings\n" + "".join(f"  [{s}] {m}\n" for s, m in t.rows) + "\n")
            continue
        parts.append((f"## {titles[name]}\n\n" if fmt == "markdown" else f"{titles[name]}\n") + render(t, fmt) + "\n")
    return "".join(parts)
