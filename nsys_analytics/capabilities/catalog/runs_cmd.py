"""`nsys-analytics runs`: the run catalog (add, list, show, diff, trend, gate)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import click

from ...output.plotstyle import png_option
from .gate import METRIC_HELP
from ...core.errors import EXIT_FINDINGS, UsageError
from ...output.options import output_options, table_option
from ..diff.diff_cmd import diff_options, parse_min_effects, write_report
from ...cli.rules_option import RULES_OPTION

EXIT_GATE = EXIT_FINDINGS  # a regression: the same code as a finding that fails CI

DB_OPTION = click.option(
    "--db", metavar="URL", envvar="NSYS_ANALYTICS_DB",
    help="Catalog: an SQLite file path or sqlite:///PATH, or postgresql://user:password@host/db "
         "(default: $NSYS_ANALYTICS_DB, else ~/.local/share/nsys-analytics/runs.db).")


def _open(db, create: bool = False):
    """The catalog; only `runs add` makes one where there is none (a read of a wrong path makes no file)."""
    from .connect import Catalog

    catalog = Catalog(db, create)
    click.get_current_context().call_on_close(catalog.close)  # SQLite's -wal/-shm go with the last connection
    return catalog


def _tags(items: tuple[str, ...]) -> dict[str, str]:
    tags = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--tag {item!r}: write key=value, e.g. --tag branch=main")
        tags[key.strip()] = value.strip()
    return tags


def _emit_tables(tables: dict, fmt: str, output: Path | None, doc: dict | None = None,
                 table: str | None = None) -> None:
    """One table as itself; several one after the other (CSV and Parquet: --table-less, the first; Parquet: each
    to FILE.<table>.parquet). `doc`: the JSON document, where it says more than the tables."""
    from ...output.report import TableReport, TablesReport
    from ...output.write import write

    name, first = next(iter(tables.items()))
    report = TableReport(first, name) if len(tables) == 1 and doc is None else TablesReport(tables, doc=doc)
    write(report, fmt, output, table)


@click.group("runs")
def command():
    """A catalog of runs: store what the reports compute for a profile, compare runs later, gate CI on them.

    \b
    Examples:
      nsys-analytics runs add train.sqlite --tag branch=main --tag commit=abc123
      nsys-analytics runs list --tag branch=main
      nsys-analytics runs diff 12 14
      nsys-analytics runs trend --metric step_time --plot trend.png
      nsys-analytics runs gate new.sqlite --baseline branch=main --max-regression 5%
    The catalog is an SQLite file by default; --db postgresql://... shares one with a team. See docs/catalog.md.
    """


@command.command("add")
@click.argument("profiles", nargs=-1, required=True)
@click.option("--tag", "tag_items", multiple=True, metavar="KEY=VALUE", help="Label the run (repeatable).")
@click.option("--ranks", is_flag=True, help="The profiles are the ranks of ONE run (default: one run each).")
@click.option("--attribution", type=click.Choice(["none", "process", "thread", "gpu"]), default="none",
              show_default=True, help="Also store kernel time per NVTX range (as diff computes it; slower).")
@click.option("--diagnose", "with_diagnose", is_flag=True, help="Also store the diagnose findings (slower).")
@RULES_OPTION
@DB_OPTION
def add(profiles, tag_items, ranks, attribution, with_diagnose, rules_files, db):
    """Store PROFILE(s); adding the same content again changes nothing.

    \b
    Examples:
      nsys-analytics runs add run.sqlite --tag branch=main
      nsys-analytics runs add rank0.sqlite rank1.sqlite --ranks --tag job=42
      nsys-analytics runs add run_42/ --tag job=42           # a folder of one run's rank files
      nsys-analytics runs add run.sqlite --attribution process --diagnose
    """
    from .writer import CatalogWriter
    from ...cli import main

    from ..diff.sides import ranks_of, refuse_ranks_as_runs
    from ...core.words import plural

    tags = _tags(tag_items)
    # a folder stands for its rank files, one run (as in diff); --ranks makes every profile given one run
    named = [(p, ranks_of(p)) for p in profiles]
    groups = [[f for _p, files in named for f in files]] if ranks else [files for _p, files in named]
    shown = [" + ".join(p for p, _f in named)] if ranks else [p for p, _f in named]
    if not ranks:
        refuse_ranks_as_runs(groups, "", "add a job's rank files together with --ranks (one run), or their folder")
    # SQLAlchemy's import and the catalog's opening overlap the profile's summary (a second process where it can be
    # forked: catalog/writer.py); nothing here may import SQLAlchemy.
    with CatalogWriter(db, fork=main.OWN_PROCESS) as writer:
        from .add import summarize_run
        from ..categories import load_rules

        rules = load_rules(rules_files)
        for paths, what in zip(groups, shown):
            summaries, found = summarize_run(paths, rules, attribution, with_diagnose)
            run_id, added = writer.add(summaries, tags, found)
            ranks_in = f" ({plural(len(summaries), 'rank')})" if len(summaries) > 1 else ""
            click.echo(f"added run {run_id}: {what}{ranks_in}" if added
                       else f"already stored as run {run_id}: {what}")


def _when(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{text!r}: write a date as YYYY-MM-DD or YYYY-MM-DDTHH:MM") from None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


@command.command("list")
@click.option("--tag", "tag_items", multiple=True, metavar="KEY=VALUE", help="Only runs with this tag (repeatable).")
@click.option("--since", help="Only runs added at or after this UTC date (YYYY-MM-DD[THH:MM]).")
@click.option("--until", help="Only runs added before this UTC date.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True, help="Newest N runs.")
@DB_OPTION
@output_options
def list_(tag_items, since, until, limit, db, fmt, output):
    """The stored runs, newest first.

    \b
    Examples:
      nsys-analytics runs list
      nsys-analytics runs list --tag branch=main --since 2026-11-01 --format csv
    """
    from .data import list_runs
    from .report import runs_result

    rows = list_runs(_open(db), _tags(tag_items), _when(since), _when(until), limit)
    _emit_tables({"runs": runs_result(rows)}, fmt, output)


@command.command("show")
@click.argument("run_id", type=int)
@DB_OPTION
@output_options
@table_option("run", "run, findings")
def show(run_id, db, fmt, output, table):
    """One run: metadata, tags, profiles and stored findings.

    \b
    Example:
      nsys-analytics runs show 12
    """
    from .data import run_details
    from .report import findings_result, run_result

    details = run_details(_open(db), run_id)
    tables = {"run": run_result(details)}
    if details["findings"] or fmt == "parquet":
        tables["findings"] = findings_result(details)
    _emit_tables(tables, fmt, output, doc=details, table=table)


@command.command("diff", context_settings={"ignore_unknown_options": True})
@click.argument("selected", nargs=-1, required=True)
@DB_OPTION
@diff_options
def diff(selected, db, name_kind, alpha, tables, limit, plot, fmt, output, min_effects, strict):
    """The `diff` tables and verdict of stored runs (no profile files needed): BASE_ID NEW_ID, or several runs
    per side, each a run id or a tag KEY=VALUE (every run with that tag), as BASE... --vs NEW...

    \b
    Examples:
      nsys-analytics runs diff 12 14 --name short
      nsys-analytics runs diff 12 13 14 --vs 15 16 17
      nsys-analytics runs diff commit=abc123 --vs commit=def456
    """
    from .data import load_run
    from ..diff.report import build_diff_runs

    catalog = _open(db)
    base_ids, new_ids = _run_sides(catalog, selected)
    report = build_diff_runs([load_run(catalog, i) for i in base_ids], [load_run(catalog, i) for i in new_ids],
                             name_kind, alpha, parse_min_effects(min_effects), strict)
    write_report(report, fmt, tables, limit, output, plot)


def _run_sides(catalog, items: tuple[str, ...]) -> tuple[list[int], list[int]]:
    """`A B` (two run ids), or `A... --vs B...` where each item is a run id or a tag KEY=VALUE."""
    if "--vs" not in items:
        if len(items) != 2 or not all(i.isdigit() for i in items):
            raise UsageError("give BASE_ID NEW_ID, or several runs per side as A... --vs B... (ids or KEY=VALUE)")
        return [int(items[0])], [int(items[1])]
    at = items.index("--vs")
    sides = (_run_ids(catalog, items[:at]), _run_ids(catalog, items[at + 1:]))
    if not sides[0] or not sides[1] or items.count("--vs") > 1:
        raise UsageError("--vs needs at least one run (an id or KEY=VALUE) on each side: A... --vs B...")
    for ids, side in zip(sides, ("base", "new")):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:  # one run counted twice has no spread: any difference would read as beyond noise
            raise UsageError(f"run {repeated[0]} is named twice on the {side} side: give each run once")
    return sides


def _run_ids(catalog, items: tuple[str, ...]) -> list[int]:
    from .data import list_runs

    ids: list[int] = []
    for item in items:
        if item.isdigit():
            ids.append(int(item))
            continue
        found = sorted(r["id"] for r in list_runs(catalog, _tags((item,))))
        if not found:
            raise UsageError(f"{item}: no run in the catalog has this tag (see `runs list`)")
        ids += found
    return ids


@command.command("trend")
@click.option("--metric", default="step_time", show_default=True,
              help="step_time, kernel_time, kernel:NAME, category:NAME (e.g. category:matmul) or range:NAME.")
@click.option("--tag", "tag_items", multiple=True, metavar="KEY=VALUE", help="Only runs with this tag (repeatable).")
@click.option("--since", help="Only runs added at or after this UTC date.")
@click.option("--limit", type=click.IntRange(min=1), default=1000, show_default=True, help="Newest N runs.")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), callback=png_option,
              help="Also draw the series into FILE.png.")
@DB_OPTION
@output_options
def trend(metric, tag_items, since, limit, plot, db, fmt, output):
    """A metric over the stored runs, oldest first.

    \b
    Examples:
      nsys-analytics runs trend --metric step_time --tag branch=main
      nsys-analytics runs trend --metric category:matmul --plot matmul.png
      nsys-analytics runs trend --metric range:forward --format csv
    """
    from .data import list_runs, metric_series
    from .report import parse_metric, trend_result

    kind, name = parse_metric(metric)
    catalog = _open(db)
    runs = list_runs(catalog, _tags(tag_items), _when(since), None, limit)
    series = metric_series(catalog, kind, name, [r["id"] for r in runs])
    if runs and name is not None and not series:  # a misspelt name would read as a metric with no values
        what = {"kernel": "a kernel", "category": "a category", "range": "an NVTX range"}[kind]
        raise UsageError(f"--metric {metric}: none of the {len(runs):,} runs selected has {what} named {name!r} "
                         "(`runs show ID` lists a run's kernels, categories and ranges)")
    result = trend_result(runs, series, metric)
    _emit_tables({"trend": result}, fmt, output)
    if plot is not None:
        from .plot import plot_trend

        click.echo(f"wrote plot to {plot_trend(result, metric, plot)}", err=True)


@command.command("gate")
@click.argument("new")
@click.option("--baseline", required=True, metavar="TAG|ID",
              help="A run id, or key=value: the newest run with that tag added before NEW (other than NEW); "
                   "when NEW is the only one (a first CI push) the gate passes with a note.")
@click.option("--metric", default="step", show_default=True, metavar="METRIC", help=f"What to compare: {METRIC_HELP}.")
@click.option("--max-regression", default="5%", show_default=True,
              help="Largest allowed growth of the metric's mean, in % (0 or more).")
@click.option("--name", "name_kind", type=click.Choice(["demangled", "short"]), default="demangled",
              show_default=True, help="Match kernels by demangled or short name.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True), default=0.05, show_default=True,
              help="A change is beyond noise when the rank test's p-value is below this.")
@RULES_OPTION
@DB_OPTION
def gate_(new, baseline, metric, max_regression, name_kind, alpha, rules_files, db):
    """Exit 4 when NEW (a run id or a profile) is slower than the baseline beyond noise and the threshold.

    Prints one line: PASS or FAIL, why, and the comparison (for step: diff's verdict). For CI: run it after
    `runs add` of the new profile (see the GitHub Actions example in docs/catalog.md).

    \b
    Metrics (--metric):
      step        mean step time (the step-like NVTX range family), else total kernel time
      gpu         GPU busy time per step (kernels, copies, memsets launched in the step)
      kernels     summed kernel time per step
      range:NAME  mean duration of that NVTX range's instances
    \b
    Examples:
      nsys-analytics runs gate new.sqlite --baseline branch=main --max-regression 5%
      nsys-analytics runs gate 15 --baseline 12 --max-regression 2.5 --metric gpu
    """
    from . import gate

    kind, name = gate.parse_metric(metric)
    threshold = gate.parse_threshold(max_regression)
    catalog = _open(db)
    side = _new_side(catalog, new, rules_files)
    new_stat = gate.new_figures(catalog, kind, name, side)
    base_id = gate.pick_baseline(catalog, baseline, side, kind, name)
    if base_id is None:
        decision = gate.no_baseline(baseline, side, kind, name)
    elif kind == "step":
        decision = _step_gate(catalog, base_id, side, name_kind, alpha, threshold)
    else:
        scope, base = gate.base_figures(catalog, kind, name, base_id)
        decision = gate.decide(kind, name, scope, base, new_stat, threshold, alpha, base_id, side.name)
    click.echo(decision.line)
    if decision.failed:
        raise click.exceptions.Exit(EXIT_GATE)


def _step_gate(catalog, base_id: int, side, name_kind: str, alpha: float, threshold: float):
    from .data import load_run
    from .report import gate
    from ..diff.report import build_diff

    report = build_diff(load_run(catalog, base_id), side.summaries, name_kind, alpha)
    return gate(report, threshold, base_id, side.name)


def _new_side(catalog, new: str, rules_files):
    """NEW as a stored run (a number that is no file) or a profile summarized now (with its per-step figures)."""
    from .data import load_run, run_hash, run_id_by_hash
    from .gate import NewSide

    if new.isdigit() and not Path(new).exists():
        summaries = load_run(catalog, int(new))
        return NewSide(summaries, run_hash(summaries), f"run {new}", int(new))
    from .add import summarize_run
    from ..categories import load_rules

    summaries, _ = summarize_run([new], load_rules(rules_files))
    content = run_hash(summaries)
    return NewSide(summaries, content, new, run_id_by_hash(catalog, content))
