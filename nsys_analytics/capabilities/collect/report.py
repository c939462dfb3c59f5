"""The headline of a fresh profile: what it holds (`info`), its top kernels (`kernels`) and its top findings
(`diagnose`), with the tags of the run. Built from the capabilities' own results; no I/O here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..diagnose import diagnose
from ..diagnose.render import findings_result
from ...core.filters import KernelFilter
from ..info.report import profile_info
from ..kernels.report import kernel_summary
from ...core.result import Result
from ...output.textreport import ReportSection, Table, TextReport
from .runner import NoKernels

if TYPE_CHECKING:
    from ...data.profile import Profile

TOP_KERNELS = 10
TOP_FINDINGS = 5
NO_KERNELS = ("no CUDA kernel was captured: trace CUDA (`--trace=cuda,nvtx`, the default here); under WSL2 "
              "kernel tracing needs a recent driver and Nsight Systems; with --range, check that the range "
              "is opened while the GPU works")


def kernel_count(profile: Profile) -> int:
    if not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        return 0
    return int(profile.sql("SELECT count(*) FROM kernels").rows[0][0])


def gpu_names(profile: Profile) -> list[str]:
    return [d["name"] for d in profile.sql("SELECT name FROM devices ORDER BY device").to_records() if d["name"]]


def headline(profile: Profile, files: list[str], tags: dict[str, str]) -> TextReport:
    """Three sections: the profile, its top kernels, its top findings. Raises NoKernels on a kernel-less one."""
    if kernel_count(profile) == 0:
        raise NoKernels(f"{profile.path}: {NO_KERNELS}")
    return TextReport("Profile", [f"file: {f}" for f in files] + [f"{k}: {v}" for k, v in tags.items()],
                      [_profile_section(profile), _kernel_section(profile), _finding_section(profile)],
                      {"kernels": "kernels", "findings": "findings"})  # --format csv: the top kernels


def _profile_section(profile: Profile) -> ReportSection:
    info = profile_info(profile)
    s = info["session"]
    version = s["nsys_version"] or "(unknown version)"
    lines = [f"Nsight Systems {version}, capture {(s['duration_ns'] or 0) / 1e9:,.3f} s."]
    lines += [f"GPU {d['device']}: {d['name']}" for d in info["devices"]]
    lines += [f"Process {p['pid']} {p['name'] or '?'}: {p['kernels']:,} kernels, {p['cuda_api_calls']:,} CUDA API "
              f"calls, {p['nvtx_events']:,} NVTX events." for p in info["processes"]]
    notes = [f"Missing {m['view']}: {m['reason']}; to capture: {m['fix']}" for m in info["missing"]]
    return ReportSection("info", "What the profile holds", lines, notes=notes)


def _kernel_section(profile: Profile) -> ReportSection:
    result = kernel_summary(profile, KernelFilter(name_kind="short"), limit=TOP_KERNELS)
    keep = ["time_pct", "total_time_ns", "instances", "avg_ns", "name"]
    index = [result.columns.index(c) for c in keep]
    table = Result(keep, [tuple(r[i] for i in index) for r in result.rows], result.notes,
                   [result.display_headers[i] for i in index])
    return ReportSection("kernels", f"Top {TOP_KERNELS} kernels",
                         tables=[Table("By total GPU time", table, "kernels")])


def _finding_section(profile: Profile) -> ReportSection:
    report = diagnose(profile)
    findings = findings_result(report)
    findings.rows = findings.rows[:TOP_FINDINGS]
    lines = [] if findings.rows else ["No problem found."]
    tables = [Table("Most GPU time at stake first (`nsys-analytics diagnose` for all)", findings, "findings")] \
        if findings.rows else []
    return ReportSection("findings", f"Top {TOP_FINDINGS} findings", lines, tables)
