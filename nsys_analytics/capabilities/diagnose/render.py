"""Text, markdown, JSON and CSV for a `DiagnoseReport` (no queries here)."""

from __future__ import annotations

import json

from ...output.render import pick_table, render
from ...output.report import Report
from ...core.result import Result
from .report import DiagnoseReport



def render_report(report: DiagnoseReport, fmt: str, table: str | None = None) -> str:
    """The whole report; `csv` gives one table (`table`): the findings, or one nsys rule's rows in nsys analyze's
    CSV (the default when the report ran that one nsys rule alone)."""
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=2, default=str) + "\n"
    if fmt == "csv":
        return render(pick_table(tables(report), table, default_table(report)), "csv")
    return _findings_text(report, fmt) + "".join(_outcome_text(o, fmt) for o in report.outcomes)


def tables(report: DiagnoseReport) -> dict:
    """{table name: Result or why it is missing}: `findings`, then each nsys rule run."""
    out: dict = {"findings": findings_result(report)}
    for o in report.outcomes:  # a skipped rule: its header and no row, as nsys analyze writes an empty file
        out[o.rule.name] = o.result if o.result is not None else Result(list(o.rule.headers), [])
    return out


def default_table(report: DiagnoseReport) -> str:
    """One nsys rule run alone: its rows (= nsys analyze's CSV); else the findings."""
    return report.rules[0] if len(report.rules) == 1 and report.outcomes else "findings"


def findings_result(report: DiagnoseReport) -> Result:
    rows = [(f.severity, f.rule, round(f.at_stake_ns / 1e6, 1), _windows(f.windows), ", ".join(f.ranges),
             f.summary, f.fix) for f in report.findings]
    return Result(["severity", "rule", "at_stake_ms", "windows", "ranges", "summary", "fix"], rows,
                  headers=["Severity", "Rule", "At stake (ms)", "Worst windows (s)", "NVTX ranges", "Finding", "Fix"],
                  key_columns=("summary", "fix", "severity", "at_stake_ms"))  # what a narrow terminal keeps


def _findings_text(report: DiagnoseReport, fmt: str) -> str:
    title = "## Findings\n\n" if fmt == "markdown" else "Findings (most GPU time at stake first)\n\n"
    if report.window and report.range is None:
        title += f"Window: {report.window['text']}.\n\n"
    if report.graphs:
        title += f"CUDA graphs: {report.graphs}\n\n"
    if report.range is not None:
        r = report.range
        title += (f"Restricted to NVTX range {r['name']!r}: {r['instances']:,} instance(s), "
                  f"{r['from_ns'] / 1e9:.3f}-{r['to_ns'] / 1e9:.3f} s\n\n")
    body = render(findings_result(report), fmt) if report.findings else "No problem found.\n"
    skipped = "".join(f"\n{line}\n" for line in report.skipped)
    return title + body + skipped


def _outcome_text(outcome, fmt: str) -> str:
    if outcome.result is None:
        return ""
    head = f"{outcome.rule.name}: {outcome.rule.title}"
    title = f"\n## {head}\n\n" if fmt == "markdown" else f"\n{head}\n\n"
    return title + render(outcome.result, fmt)


def _windows(windows: list[tuple[int, int]]) -> str:
    return ", ".join(f"{s / 1e9:.3f}-{e / 1e9:.3f}" for s, e in windows)


class DiagnoseOutput(Report):
    """A DiagnoseReport as the writer takes it: the findings, then each nsys rule run, as tables."""

    def __init__(self, report: DiagnoseReport):
        self.report = report
        self.exit_code = 0

    def tables(self) -> dict:
        return tables(self.report)

    def default_table(self) -> str:
        return default_table(self.report)

    def to_dict(self) -> dict:
        return self.report.to_dict()

    def stack_table(self, fmt: str, table: str | None = None) -> Result | None:
        """CSV over ranks: one table, every rank's findings (or --table's rows) under a `rank` column."""
        return pick_table(self.tables(), table, self.default_table()) if fmt == "csv" else None

    def render(self, fmt: str, table: str | None = None) -> str:
        return render_report(self.report, fmt, table)
