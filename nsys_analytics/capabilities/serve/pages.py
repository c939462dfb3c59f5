"""The viewer's pages as the commands' own reports: each builder returns the `Report` the command of the same
name writes (its defaults), so a page shows the numbers the CLI prints and its CSV is the writer's CSV."""

from __future__ import annotations

from ...core.errors import NsysAnalyticsError, UsageError
from ...core.filters import KernelFilter
from ...core.result import Result
from ...output.report import Report, TableReport, TablesReport

ATTRIBUTIONS = ("thread", "process", "gpu")
INSTANCE_LIMIT = 1000


def kernels(served, args: dict) -> Report:
    from ..kernels.report import kernel_summary

    return TableReport(kernel_summary(served.profile), "kernels")


def nvtx(served, args: dict) -> Report:
    from ..nvtx.report import nvtx_summary

    return TableReport(nvtx_summary(served.profile), "nvtx")


def nvtx_kernels(served, args: dict) -> Report:
    """`nvtx-kernels [--attribution A] [--exclusive]`, the rows of one range when `range` names it."""
    from ..nvtx.report import nvtx_kernel_summary

    attribution = args.get("attribution", "thread")
    if attribution not in ATTRIBUTIONS:
        raise UsageError(f"attribution must be one of {', '.join(ATTRIBUTIONS)}")
    result = nvtx_kernel_summary(served.profile, attribution, args.get("exclusive") == "1")
    if "range" in args:
        at = result.columns.index("range")
        result.rows = [r for r in result.rows if r[at] == args["range"]]
        if not result.rows and args["range"] not in served.profile.range_names():
            from ...core.filters import unknown_range  # a 4xx naming the closest ranges, as `--range` gives

            raise unknown_range(args["range"], served.profile.range_names(), limit=3)
    return TableReport(result, "nvtx_kernels")


def categories(served, args: dict) -> Report:
    """`breakdown` with its defaults: GPU time per kernel category in the steady state."""
    from ..breakdown.render import BreakdownOutput
    from ..breakdown.report import breakdown_report

    return BreakdownOutput(breakdown_report([served.profile], rules=served.rules, kernel_filter=KernelFilter()))


def instances(served, args: dict) -> Report:
    """The executions of one kernel (by demangled name), in time order; with `--ncu`, its Nsight Compute rows."""
    if not args.get("name"):
        raise UsageError("give the kernel's name: name=...")
    result = served.profile.run_file("serve", "kernel_instances", {"name": args["name"], "limit": INSTANCE_LIMIT})
    if len(result.rows) == INSTANCE_LIMIT:
        result.notes.append(f"The first {INSTANCE_LIMIT} executions in time order.")
    if served.ncu is None:
        return TableReport(result, "instances")
    short = result.rows[0][result.columns.index("short_name")] if result.rows else None
    return TablesReport({"instances": result, "ncu": ncu_rows(served, short)})


def ncu_rows(served, short_name: str | None) -> Result | str:
    """`ncu REPORT --nsys PROFILE --match '^NAME$'` (its JSON's numbers: base units), or why there are none."""
    import re

    from ..ncu.analysis import Options, analyze
    from ..ncu.nsys_join import add_columns, join_nsys
    from ..ncu.report import NcuReport
    from ..ncu.table import for_format

    if short_name is None:
        return "no execution of this kernel in the profile"
    try:
        with NcuReport(served.ncu) as r:
            analysis = analyze(r, Options(match=f"^{re.escape(short_name)}$"))
            add_columns(analysis, join_nsys(r, served.profile.path))
    except UsageError:  # no result of that name in the report
        return f"the Nsight Compute report has no kernel named {short_name}"
    return for_format(analysis, "json")


def overview(served, args: dict) -> Report:
    """`info`'s facts and `diagnose`'s findings (or why there are none)."""
    from ..diagnose.report import diagnose
    from ..info.report import build

    info = build(served.profile).to_dict()
    try:
        findings = diagnose(served.profile).to_dict()
    except NsysAnalyticsError as e:  # a profile without CUDA data has no findings; the page says why
        findings = {"missing": str(e), "findings": []}
    rows = [(f["severity"], f["rule"], f["summary"]) for f in findings["findings"]]
    table = Result(["severity", "rule", "summary"], rows)
    return TablesReport({"findings": table}, {"info": info, "diagnose": findings})


PAGES = {"kernels": kernels, "nvtx": nvtx, "nvtx-kernels": nvtx_kernels, "categories": categories,
         "instances": instances, "overview": overview}


def ranks(session, args: dict) -> Report:
    """`ranks` over the profiles served as ranks."""
    from ..ranks.render import RanksOutput
    from ..ranks.sets import ranks_report

    if session.pset is None or len(session.pset) < 2:
        what = "one profile is served as ranks" + (" (--vs serves a comparison, not ranks)" if session.vs else "")
        raise UsageError(f"{what}: start `serve` with several ranks (files or a folder), or with --by-rank for one "
                         "report of a whole launch")
    report = ranks_report(session.pset)
    return RanksOutput(report, [*report.notes])


def diff(session, args: dict) -> Report:
    """`diff BASE --vs NEW` with its defaults."""
    from ..diff import ALPHA
    from ..diff.data import summarize_side
    from ..diff.render import DiffOutput
    from ..diff.report import build_diff_runs

    if not session.vs:
        raise UsageError("no profile to compare with: start `serve BASE --vs NEW`")
    # a report of a whole launch read as its ranks, as `diff` reads it (split): against rank files it read as one
    base = summarize_side(session.base_paths, session.rules, "auto", split=True)
    new = summarize_side(session.vs, session.rules, "auto", split=True)
    return DiffOutput(build_diff_runs([base], [new], "demangled", ALPHA, {}, False))


SESSION_PAGES = {"ranks": ranks, "diff": diff}
