"""The HTML report's content, gathered from the capabilities (no arithmetic of its own, no I/O): per profile
its info, top kernels, categories, NVTX ranges with their GPU projection, GPU time per model module, and the
diagnose findings each with a
timeline of its worst window; for a forward + training pair, the assignment answers (a)-(f).

html_render.py turns a `Page` into one self-contained HTML file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..breakdown.report import BreakdownReport, breakdown_report
from ..categories import RuleSet
from ..diagnose import Finding, diagnose
from ...core.errors import MissingDataError, NsysAnalyticsError
from ...core.filters import KernelFilter
from ..info.report import profile_info
from ..kernels.report import kernel_summary
from ..modules.report import ModulesReport
from ..modules.run import modules_report
from ..nvtx.report import nvtx_gpu_projection_summary
from ...core.result import Result
from ...output.textreport import TextReport
from .timeline import Timeline, build_timeline
from .window import TimeWindow

if TYPE_CHECKING:
    from ...data.profile import Profile

TOP_KERNELS = 15
FINDING_TIMELINES = 6      # findings that get a picture of their worst window
FINDING_WIDTH_PX = 900     # pixel columns of those pictures
FINDING_MARGIN = 0.1       # the picture shows this share of the window's length before and after it
# How the NVTX table places GPU work in ranges unless `html --attribution` says otherwise: `report`'s default
# (process: autograd's backward kernels count in `backward`), so the page's table and its assignment answers agree.
NVTX_ATTRIBUTION = "process"


@dataclass
class FindingView:
    finding: Finding
    timeline: Timeline | None  # its worst window; None beyond FINDING_TIMELINES or without a window


@dataclass
class ProfileView:
    label: str
    info: dict
    kernels: Result
    breakdown: BreakdownReport | None
    nvtx: Result | None
    modules: ModulesReport | None = None
    findings: list[FindingView] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)  # section -> why it is empty and what to do
    failed: dict[str, str] = field(default_factory=dict)  # section -> the error that stopped it (a subset of missing)
    skipped: list[str] = field(default_factory=list)  # diagnose rules skipped for lack of data, with the fix


@dataclass
class Page:
    title: str
    categories: list[str]
    profiles: list[ProfileView]
    assignment: TextReport | None = None


def profile_view(profile: Profile, rules: RuleSet, label: str | None = None,
                 attribution: str = NVTX_ATTRIBUTION) -> ProfileView:
    """Everything the page shows about one profile; a section whose data is missing says why. `attribution`: how
    the NVTX table places GPU work in ranges (its note says which)."""
    view = ProfileView(label or profile.path.name, profile_info(profile), None, None, None)
    view.kernels = _or_missing(view, profile, "kernels",
                               lambda: kernel_summary(profile, KernelFilter(), False, TOP_KERNELS))
    view.breakdown = _or_missing(view, profile, "categories", lambda: breakdown_report([profile], rules=rules))
    view.nvtx = _or_missing(view, profile, "nvtx", lambda: _nvtx_table(profile, attribution))
    view.modules = _or_missing(view, profile, "modules", lambda: modules_report(profile))
    report = _or_missing(view, profile, "findings", lambda: diagnose(profile))
    if report is not None:
        for i, f in enumerate(report.findings):
            timeline = None
            if i < FINDING_TIMELINES and f.windows:
                picture = lambda f=f: _worst_window(profile, f, rules, view)  # noqa: E731
                timeline = _or_missing(view, profile, f"timeline of {f.rule}", picture)
            view.findings.append(FindingView(f, timeline))
        view.skipped = report.skipped
    return view


def _nvtx_table(profile: Profile, attribution: str) -> Result:
    """`nvtx-gpu PROFILE --attribution A`: its rows, and its notes after one naming that command."""
    result = nvtx_gpu_projection_summary(profile, attribution)
    result.notes.insert(0, f"As `nsys-analytics nvtx-gpu PROFILE --attribution {attribution}` prints it "
                           "(`nvtx-gpu` alone uses thread, nsys' rule; html --attribution chooses).")
    return result


def _worst_window(profile: Profile, f: Finding, rules: RuleSet, view: ProfileView) -> Timeline:
    start, end = f.windows[0]
    margin = max(1, int((end - start) * FINDING_MARGIN))
    window = TimeWindow(start - margin, end + margin, f"worst window of {f.rule}")
    return build_timeline(profile, window, rules=rules, width_px=FINDING_WIDTH_PX,
                          title=f"{view.label}: {f.rule}, worst window (shaded) and 10 % around it",
                          highlight=(start, end))


def _or_missing(view: ProfileView, profile: Profile, key: str, build):
    """What `build` returns; None where the section is empty for lack of data (`view.missing` says why) or failed
    (`view.failed` too: the page shows it as failed and the command's exit code says so)."""
    try:
        return build()
    except MissingDataError as e:
        view.missing[key] = str(e)
    except Exception as e:  # noqa: BLE001 - only the failures below are a section's; others propagate
        failure = _failure(e, profile)
        if failure is None:
            raise
        view.failed[key] = str(failure)
        view.missing[key] = f"FAILED: could not be made: {failure}"
    return None


def _failure(e: Exception, profile: Profile) -> NsysAnalyticsError | None:
    """The error of a section that failed: a library error, running out of memory, or a value no query can use."""
    if isinstance(e, NsysAnalyticsError):
        return e
    from ...data import bad_values, database

    return database.memory_error(e) or bad_values.value_error(e, [profile.sqlite_path])
