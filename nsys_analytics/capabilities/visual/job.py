"""The HTML page of a distributed job (many ranks), gathered from the capabilities (no arithmetic of its own, no
I/O): the `ranks` verdict and tables, the NCCL summary, each rank's top kernels and kernel categories side by side,
and each rank's timeline of one steady step on the common clock.

job_render.py turns a `JobView` into one self-contained HTML file."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.errors import MissingDataError
from ..breakdown.report import BreakdownReport, build_report, summarize
from ..categories import RuleSet
from ..nvtx.steady import STEP_RANGE, WARMUP_RANGE, steady_state
from ..ranks.render import RanksOutput
from ..ranks.sets import kernel_summary_set, nccl_summary_set, ranks_report
from ..ranks.summary import SetResult
from .rank_timeline import RankTimeline, rank_timelines
from .window import WindowRequest
from ...core.words import plural

TOP_KERNELS = 15
TIMELINE_WIDTH_PX = 1100  # pixel columns of each rank's step picture


@dataclass
class JobView:
    title: str
    ranks: list[int]
    head: list[str]                          # how the ranks were found, the steady state, clocks
    verdict: RanksOutput | None = None        # the `ranks` report: findings, summary, steps, phases
    nccl: SetResult | None = None
    kernels: SetResult | None = None
    categories: BreakdownReport | None = None  # one column per rank
    step: str | None = None                    # the step the timelines show
    timelines: list[RankTimeline] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)  # section -> why it is empty and what to do
    # False: the profiles name no rank ids (numbered in the order given) or look like several jobs' (mismatches)
    one_job: bool = True

    @property
    def what(self) -> str:
        """What the page is of: the ranks of one job, or profiles taken as ranks."""
        n = len(self.ranks)
        return f"{plural(n, 'rank')} of one job" if self.one_job else f"{plural(n, 'profile')} taken as ranks"


def is_one_job(pset) -> bool:
    """Whether the profiles read as the ranks of one job: they name their rank ids, and nothing in them says they
    come from different launches or jobs."""
    return pset.rank_source != "input order" and not pset.mismatches


def job_view(pset, rules: RuleSet, title: str) -> JobView:
    """Everything the page of a job shows; a section whose data is missing says why."""
    head = f"{plural(len(pset), 'rank')} (rank ids from the {pset.rank_source})"
    view = JobView(title, pset.ranks, [head, *pset.messages()], one_job=is_one_job(pset))
    report = _or_missing(view, "ranks", lambda: ranks_report(pset))
    if report is not None:
        view.verdict = RanksOutput(report, view.head + report.notes)
    view.nccl = _or_missing(view, "nccl", lambda: nccl_summary_set(pset))
    view.kernels = _or_missing(view, "kernels", lambda: kernel_summary_set(pset, limit=TOP_KERNELS))
    view.categories = _or_missing(view, "categories", lambda: rank_categories(pset, rules))
    view.step = steady_step(report)
    if view.step is None:
        view.missing["timelines"] = ("no steady step range (step_*) on the ranks: profile with NVTX ranges "
                                     "around each step (docs/ranks.md)")
    else:
        request = WindowRequest(range_name=view.step)
        view.timelines = _or_missing(view, "timelines", lambda: rank_timelines(
            pset, request, rules=rules, width_px=TIMELINE_WIDTH_PX)) or []
    return view


def rank_categories(pset, rules: RuleSet) -> BreakdownReport:
    """GPU time by kernel category, one column per rank (its steady state, as `breakdown` counts it)."""
    columns = []
    for member in pset.members:
        with member.open() as profile:
            steady = steady_state(profile, "steady", STEP_RANGE, WARMUP_RANGE)
            columns.append(summarize(profile, rules, label=f"rank {member.rank}", steady=steady))
    return build_report(columns, rules, None, "kernel categories per rank")


def steady_step(report) -> str | None:
    """The name of the middle steady step (step_3 of steps 0-5): one the ranks all ran, past the warm-up."""
    if report is None or report.steps.empty or not report.steady_steps:
        return None
    step = report.steady_steps[len(report.steady_steps) // 2]
    names = report.steps.loc[report.steps["step"] == step, "name"]
    return str(names.iloc[0]) if len(names) else None


def _or_missing(view: JobView, key: str, build):
    try:
        return build()
    except MissingDataError as e:
        view.missing[key] = str(e)
        return None
