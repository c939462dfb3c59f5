"""Many profiles for every report command, through one decorator: `@profiles_argument(...)` in place of
`PROFILE_ARG`.

One profile (a file): the command runs as it always did, its output unchanged. Several profiles (files, globs, a
folder), or one report split into its processes with `--by-rank`: a `ProfileSet` is opened, the command's own body
runs once per rank on the engine (a local process pool, or Dask with `--scheduler`), and the output is a combined
table (where the command has an exact merge) plus a per-rank table with a `rank` column.
"""

from __future__ import annotations

import functools
import importlib
import json
from pathlib import Path

import click

from ..core.errors import EXIT_FINDINGS
from ..core.result import Result
from ..core.words import plural
from ..data.engine import SCHEDULER_ENV, make_engine
from ..output.report import Report
from ..output.write import collecting, write

def set_options(f):
    """--scheduler, --jobs, --skip-bad, --by-rank, --combined/--per-rank: how many profiles are read and shown."""
    options = [
        click.option("--scheduler", metavar="ADDRESS", envvar=SCHEDULER_ENV,
                     help=f"Run per-file work on a Dask cluster (tcp://HOST:8786; or set {SCHEDULER_ENV}). "
                          "Default: a local process pool."),
        click.option("--jobs", type=click.IntRange(min=1), help="Local worker processes (default: one per core, "
                                                                   "or none under 256 MiB of exports; 1: no pool)."),
        click.option("--skip-bad", is_flag=True, help="Go on without profiles that cannot be read (named on stderr)."),
        click.option("--by-rank", is_flag=True, help="Treat one report holding several processes as one rank per "
                                                     "process (several profiles always are)."),
        click.option("--combined", is_flag=True, help="Several profiles: only the combined table."),
        click.option("--per-rank", is_flag=True, help="Several profiles: only the per-rank table."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def profiles_argument(handler=None, module: str | None = None):
    """Replace `PROFILE_ARG` by PROFILES... and the set options.

    handler(pset, **kwargs) -> SetResult builds the many-profile output of a command that has an exact merge;
    without one, the command's own body runs once per rank (`module` names its cli module, which workers import)
    and the per-rank tables are stacked with a `rank` column."""

    def decorate(f):
        @functools.wraps(f)
        def wrapper(profiles, scheduler, jobs, skip_bad, by_rank, combined, per_rank, **kwargs):
            only = only_table(combined, per_rank)
            if _is_single(profiles) and not by_rank and not scheduler:
                return f(profile=Path(profiles[0]), **kwargs)
            if kwargs.get("fmt") == "parquet" and f.__module__.endswith(_TEXT_BODIES):
                from ..core.errors import UsageError

                raise UsageError(f"--format parquet writes the tables of one profile; with several, run "
                                 f"`{f.__module__.rsplit('.', 1)[1].removesuffix('_cmd')}` once per profile, or use "
                                 "--format json")
            from ..data.profile_set import ProfileSet

            engine = make_engine(scheduler, jobs)
            try:
                pset = ProfileSet(list(profiles), engine=engine, skip_bad=skip_bad)
                check_output(kwargs.get("output"), pset, profiles)
                for line in [f"{plural(len(pset), 'rank')} (rank ids from the {pset.rank_source})", *pset.messages()]:
                    click.echo(line, err=True)
                if len(pset) == 1 and pset.members[0].pid is None:
                    return f(profile=Path(pset.members[0].path), **kwargs)
                merge = handler or _merge_for(f.__module__, kwargs)
                if merge is not None:
                    result = merge(pset, **kwargs)
                else:
                    result = run_body_per_rank(pset, module or f.__module__, kwargs)
            finally:
                engine.close()
            if not isinstance(result, RankTexts):
                from ..capabilities.ranks.render import SetOutput

                result = SetOutput(result, only or "all")
            write(result, kwargs.get("fmt", "table"), kwargs.get("output"), inputs=profiles)
            if result.exit_code:
                raise click.exceptions.Exit(result.exit_code)

        wrapper.__single__ = f
        # readable=False on every profile argument: an unreadable file is the profile's own one-line error (exit 1,
        # skipped by --skip-bad), not click's usage error.
        wrapper = click.argument("profiles", nargs=-1, required=True, metavar="PROFILES...",
                                 type=click.Path(path_type=str, readable=False))(set_options(wrapper))
        return wrapper

    return decorate


def only_table(combined: bool, per_rank: bool) -> str | None:
    """Which of a set's tables to show: "combined", "ranks", or None for both (the two flags exclude each other)."""
    if combined and per_rank:
        from ..core.errors import UsageError

        raise UsageError("--combined and --per-rank each show one of the two tables; give one, or neither for both")
    return "combined" if combined else "ranks" if per_rank else None


# Commands whose body renders its own text (a report of several sections) rather than emitting Results: over
# several profiles they give one text section per rank, which has no Parquet form.
_TEXT_BODIES = (".diagnose_cmd", ".attention_cmd")


def _is_single(profiles) -> bool:
    """One file, or one folder that is a parquetdir/arrowdir export (not a folder of profiles)."""
    if len(profiles) != 1:
        return False
    from ..data.columnar import is_export_dir

    return Path(profiles[0]).is_file() or is_export_dir(Path(profiles[0]))


def _merge_for(module: str, kwargs: dict):
    """The exact many-rank merge of a command, where its registry record names one and none of the options that
    turn it off (`merge_unless`, e.g. nvtx-gpu --trace) is given."""
    from ..core import registry

    record = registry.by_module(module)
    if record is None or record.merge is None or any(kwargs.get(o) for o in record.merge_unless):
        return None
    return registry.resolve(record.merge)


def diagnose_set(pset, module: str, options: dict):
    """diagnose over many ranks: the cross-rank findings (straggler, waits) first, then each rank's own findings,
    in the steady state (the step ranges) unless a window was given: start-up (NCCL set-up, warm-up) is one-off."""
    from ..capabilities.nvtx.steady import step_glob
    from ..capabilities.ranks import report as ranks_render
    from ..capabilities.ranks.sets import ranks_report

    report = ranks_report(pset)
    kwargs = dict(options)
    scope = "the whole capture"
    steady = report.steps[report.steps["step"].isin(report.steady_steps)] if not report.steps.empty else None
    names = sorted(set(steady["name"])) if steady is not None and len(steady) else []
    given = options.get("range_name") or options.get("start") or options.get("end")
    if names and not given and not names[0].startswith("rep_"):
        # each rank's steady state by nvtx/steady.py, with the ranks table's warm-up (the warmup range, and the
        # first step where the table left it out): one definition for both
        from ..capabilities.ranks.data import WARMUP_STEPS

        kwargs.update(scope="steady", step_range=step_glob(names), warmup_range=kwargs.get("warmup_range") or "warmup",
                      warmup_steps=WARMUP_STEPS if report.steady_steps and report.steady_steps[0] > 0 else 0)
        scope = (f"the steady state: the NVTX ranges {kwargs['step_range']} after the warm-up (start-up before "
                 "them, NCCL's set-up and the warm-up steps left out)")
    elif names and not given and all(m.clock_offset_ns == 0 for m in pset.members):
        # steps detected from the collectives (no NVTX step ranges): their span, on the ranks' one clock
        kwargs.update(start=f"{int(steady['start_ns'].min())}ns", end=f"{int(steady['end_ns'].max())}ns")
        scope = f"the steady state: the detected steps' span, {kwargs['start']} to {kwargs['end']}"
    per_rank = run_body_per_rank(pset, module, kwargs)
    findings = ranks_render.tables(report, ["findings"])["findings"]
    if _fails(options.get("fail_on"), [severity for severity, _message, *_ in findings.rows]):
        per_rank.exit_code = max(per_rank.exit_code, EXIT_FINDINGS)  # the straggler fails a check like any finding
    if not isinstance(per_rank, RankTexts):  # CSV: one table, the cross-rank findings first as rank `all`
        return _with_cross_rank_rows(per_rank, findings)
    fmt = options.get("fmt", "table")
    if fmt == "json":
        import json

        text = json.dumps({"scope": scope, "notes": report.notes,
                           "findings": [dict(zip(findings.columns, r)) for r in findings.rows]})
    else:
        found = [dict(zip(findings.columns, row)) for row in findings.rows]
        lines = [f"Across ranks ({plural(len(pset), 'rank')}, rank ids from the {pset.rank_source}); each rank below "
                 f"covers {scope}."] + report.notes + [f"[{f['severity']}] {f['message']}"
                                                      + (f"\n  fix: {f['fix']}" if f["fix"] else "") for f in found]
        text = "\n".join(lines) + "\n"
    return RankTexts([("all", "cross-rank findings", text), *per_rank.sections], per_rank.exit_code)


def _fails(fail_on: str | None, severities: list[str]) -> bool:
    """Whether `diagnose --fail-on` fails on findings of these severities."""
    from ..capabilities.diagnose.findings import rank

    return bool(fail_on) and any(rank(s) >= rank(fail_on) for s in severities)


def _with_cross_rank_rows(per_rank, findings: Result):
    """The findings table of every rank with the cross-rank findings (straggler, waits) as rank `all` rows."""
    table = per_rank.ranks
    if "summary" not in table.columns:  # --table names one nsys rule's rows: those alone
        return per_rank
    at = {c: i for i, c in enumerate(table.columns)}
    rows = []
    for found in (dict(zip(findings.columns, r)) for r in findings.rows):
        row = [None] * len(table.columns)
        row[at["rank"]], row[at["severity"]], row[at["rule"]], row[at["summary"]] = (
            "all", found["severity"], "ranks", found["message"])
        if "fix" in at:
            row[at["fix"]] = found["fix"]
        rows.append(tuple(row))
    table.rows[:0] = rows
    return per_rank


class RankTexts(Report):
    """The output of a command that lays out its own text (diagnose, attention), one section per rank."""

    def __init__(self, sections: list[tuple[int, str, str]], exit_code: int = 0):
        self.sections = sections  # (rank, member name, text)
        self.exit_code = exit_code

    def tables(self) -> dict:
        return {"text": "this output is one text section per rank; use --format table, markdown or json"}

    def to_dict(self) -> list:
        return [{"rank": r, "profile": n, "output": _json_or_text(t)} for r, n, t in self.sections]

    def render(self, fmt: str, table: str | None = None) -> str:
        """JSON: a list of {rank, profile, output}; other formats: each rank's text under its heading (CSV: each
        rank's table, as the command writes it for one profile)."""
        if fmt == "json":
            return json.dumps(self.to_dict(), indent=2) + "\n"
        head = "## rank {r} ({n})\n\n" if fmt == "markdown" else "== rank {r} ({n}) ==\n"
        return "".join(head.format(r=r, n=n) + t + ("" if t.endswith("\n") else "\n") + "\n"
                       for r, n, t in self.sections)


def _json_or_text(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def run_body_per_rank(pset, module: str, kwargs: dict):
    """Each rank through the command's own body (in the engine's workers), stacked with a `rank` column; a
    command that prints text itself gives one section per rank."""
    from ..capabilities.ranks.summary import SetResult

    from ..output.terminal import width_for

    # a rank's text is laid out in its worker, to the width of the parent's output
    width = width_for(kwargs.get("fmt", "table"), kwargs.get("output") is not None)
    per_rank = pset.map(_run_body, module, _portable(kwargs), width)
    if any(not results for results, _text, _code in per_rank):
        return RankTexts([(m.rank, f"{m.name}; rank id from the {m.rank_source}", text) for m, (_r, text, _c) in zip(pset.members, per_rank)],
                         max(code for _r, _t, code in per_rank))
    tables: list[Result] = []
    noted: list[dict[str, list]] = []  # per table: each note's text -> the ranks that wrote it, in order
    for rank, (results, _text, _code) in zip(pset.ranks, per_rank):
        for i, r in enumerate(results):
            while len(tables) <= i:
                tables.append(Result(["rank", *r.columns], [], headers=["Rank", *r.display_headers]))
                noted.append({})
            tables[i].rows.extend((rank, *row) for row in r.rows)
            for n in r.notes:
                noted[i].setdefault(n, []).append(rank)
    if not tables:
        tables, noted = [Result(["rank"], [])], [{}]
    notes = ["No combined table for this command: one table with every rank's rows (column `rank`)."]
    # the notes once, under the set (a table's own would print them a second time), each named by its ranks
    notes += [f"{_whose(ranks, len(pset))}: {n}" for n, ranks in noted[0].items()]
    return SetResult(None, tables[0], notes, max(code for _r, _t, code in per_rank))


def _whose(ranks: list, total: int) -> str:
    """'rank 1', 'ranks 0, 2' or 'every rank': the ranks a note holds for."""
    if len(ranks) == total and total > 1:
        return "every rank"
    return f"rank {ranks[0]}" if len(ranks) == 1 else "ranks " + ", ".join(map(str, ranks))


def _portable(kwargs: dict) -> dict:
    """What a worker needs of the options: no output file (workers return Results, the parent writes)."""
    return {k: v for k, v in kwargs.items() if k != "output"}


def _run_body(member, module: str, kwargs: dict, width: int | None = None) -> tuple[list[Result], str, int]:
    """One rank through a command's body: the tables it writes, the text of a report that lays out its own (and
    whatever it printed), its exit code."""
    import contextlib
    import io

    body = importlib.import_module(module).command.callback.__single__
    printed = io.StringIO()
    code = 0
    with collecting() as reports, contextlib.redirect_stdout(printed):
        try:
            body(profile=member, output=None, **kwargs)
        except click.exceptions.Exit as e:
            code = e.exit_code
    fmt, table = kwargs.get("fmt", "table"), kwargs.get("table")
    stacked = [(r, r.stack_table(fmt, table)) for r in reports]
    results = [t for _r, t in stacked if t is not None]
    from ..output.terminal import laid_out

    with laid_out(width):
        text = "".join(r.render(fmt, table) for r, t in stacked if t is None)
    return results, text + printed.getvalue(), code or max((r.exit_code for r in reports), default=0)


def check_output(output, pset, profiles=()) -> None:
    """-o must not name any input profile (checked before any work)."""
    if output is not None:
        from ..core.files import check_output as check

        check(output, [*(m.path for m in pset.members), *profiles])
