"""`info`: what a profile holds, what it lacks, and how to capture what is missing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.result import Result
from ...output.render import render
from ...output.report import Report

if TYPE_CHECKING:
    from ...data.profile import Profile

# view -> (raw tables behind it, why it can be empty, the fix)
MISSING_HINTS = {
    "kernels": ("CUPTI_ACTIVITY_KIND_KERNEL",
                "captured without CUDA tracing, or on WSL2 where kernel tracing is limited",
                "nsys profile --trace=cuda ..."),
    "cuda_api": ("CUPTI_ACTIVITY_KIND_RUNTIME",
                 "captured without CUDA tracing", "nsys profile --trace=cuda ..."),
    "nvtx_events": ("NVTX_EVENTS",
                    "captured without NVTX tracing, or the program has no NVTX annotations",
                    "nsys profile --trace=cuda,nvtx ... and annotate code with nvtx.annotate / torch.cuda.nvtx"),
    "memcpy": ("CUPTI_ACTIVITY_KIND_MEMCPY", "the program made no traced memory copies",
               "nsys profile --trace=cuda ..."),
    "memset": ("CUPTI_ACTIVITY_KIND_MEMSET", "the program made no traced memsets", "nsys profile --trace=cuda ..."),
    "syncs": ("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "no traced CUDA synchronizations",
              "nsys profile --trace=cuda ..."),
}


def profile_info(profile: "Profile") -> dict:
    """A dictionary: file, session, devices, processes, row counts, missing data."""
    session = profile.sql("SELECT * FROM session").to_records()[0]
    processes = profile.run_file("info", "active_processes").to_records()
    counts = dict(profile.run_file("info", "profile_counts").rows)
    # every kernel, API call and NVTX event is counted under its process (a NULL pid is a group of its own)
    for view, column in (("kernels", "kernels"), ("cuda_api", "cuda_api_calls"), ("nvtx_events", "nvtx_events")):
        counts[view] = sum(int(p[column] or 0) for p in processes)
    counts = dict(sorted(counts.items()))
    missing = [
        {"view": view, "reason": reason, "fix": fix}
        for view, (_, reason, fix) in MISSING_HINTS.items() if counts.get(view, 0) == 0
    ]
    if session["nsys_version"] is None:
        missing.append({"view": "session", "reason": "no export metadata (exported by nsys before 2022)",
                        "fix": "re-export with a newer nsys for versions; the capture window is taken from events"})
    return {
        "file": str(profile.path),
        "export": str(profile.sqlite_path),
        "size_bytes": profile.sqlite_path.stat().st_size,
        "session": session,
        "devices": profile.sql("SELECT * FROM devices ORDER BY device").to_records(),
        "processes": processes,
        "row_counts": counts,
        "graphs": _graphs(profile, counts),
        "missing": missing,
    }


def _graphs(profile: "Profile", counts: dict) -> dict | None:
    """Whole CUDA graph executions: how many, their GPU time, and what that means for the reports."""
    if not counts.get("graph_executions"):
        return None
    graphs, ns = profile.sql("SELECT count(DISTINCT name), sum(duration_ns) FROM graph_executions").rows[0]
    return {"executions": counts["graph_executions"], "graphs": graphs, "gpu_time_ns": int(ns),
            "note": "CUDA graphs traced whole (nsys --cuda-graph-trace=graph): their kernels are not in `kernels`; "
                    "kernels, nvtx-kernels and nvtx-gpu leave them out as nsys stats does (--graphs adds them), "
                    "breakdown, diagnose, attention and report count them as [CUDA graph N]"}


def info_text(info: dict) -> str:
    """The info dictionary as readable text."""
    s = info["session"]
    lines = [
        f"File            {info['file']}" + (f"  (export: {info['export']})" if info["export"] != info["file"] else ""),
        f"Size            {info['size_bytes'] / 1e6:,.1f} MB",
        f"Nsight Systems  {s['nsys_version'] or 'unknown (no export metadata)'}",
        f"Export schema   {s['schema_version'] or 'unknown'}",
        f"Capture         {_seconds(s['duration_ns'])}"
        + (" (span of the recorded events)" if s["window_from_events"] else ""),
        "",
        "GPUs",
    ]
    lines += [f"  {d['device']}: {d['name']}  {_gib(d['memory_bytes'])}  {d['sm_count'] or '?'} SMs  "
              f"compute {d['compute_capability'] or '?'}" for d in info["devices"]] or ["  none recorded"]
    lines += ["", "Processes with CUDA or NVTX activity"]
    lines += [f"  {p['pid']:>7}  {p['name'] or '?':<24} kernels {p['kernels']:,}  CUDA API calls "
              f"{p['cuda_api_calls']:,}  NVTX {p['nvtx_events']:,}" for p in info["processes"]] or ["  none"]
    lines += ["", "Rows"]
    lines += [f"  {view:<16} {n:>12,}" for view, n in info["row_counts"].items()]
    g = info.get("graphs")
    if g:
        lines += ["", "CUDA graphs", f"  {g['executions']:,} executions of {g['graphs']:,} graph(s), "
                  f"{g['gpu_time_ns'] / 1e6:,.3f} ms of GPU time", f"  {g['note']}"]
    if info["missing"]:
        lines += ["", "Missing"]
        lines += [f"  {m['view']}: {m['reason']}; to capture: {m['fix']}" for m in info["missing"]]
    return "\n".join(lines) + "\n"


def info_rows(info: dict) -> tuple[list[str], list[tuple]]:
    """The info dictionary flattened to (section, item, value) rows for CSV and markdown."""
    rows = [("file", k, info[k]) for k in ("file", "export", "size_bytes")]
    rows += [("session", k, v) for k, v in info["session"].items()]
    rows += [("device", str(d["device"]), d["name"]) for d in info["devices"]]
    rows += [("process", str(p["pid"]), p["name"]) for p in info["processes"]]
    rows += [("rows", k, v) for k, v in info["row_counts"].items()]
    rows += [("graphs", k, v) for k, v in (info.get("graphs") or {}).items()]
    rows += [("missing", m["view"], f"{m['reason']}; to capture: {m['fix']}") for m in info["missing"]]
    return ["section", "item", "value"], rows


def _seconds(ns) -> str:
    return "unknown" if ns is None else f"{ns / 1e9:,.3f} s"


def _gib(n) -> str:
    return "? GiB" if not n else f"{n / 2**30:,.0f} GiB"


class InfoReport(Report):
    """`info` as a report: the text page for people, the dictionary as JSON, (section, item, value) rows for CSV,
    markdown and Parquet."""

    def __init__(self, info: dict):
        self.info = info

    def tables(self) -> dict[str, Result | str]:
        return {"info": Result(*info_rows(self.info))}

    def to_dict(self) -> dict:
        return self.info

    def stack_table(self, fmt: str, table: str | None = None) -> Result | None:
        return None if fmt in ("table", "json") else self.tables()["info"]

    def layout(self, fmt: str, table: str | None = None) -> str:
        return info_text(self.info) if fmt == "table" else render(self.tables()["info"], fmt)


def build(profile: "Profile") -> InfoReport:
    """The report; what it says of a profile file is remembered for the next `info` (memo.py)."""
    from .memo import remembered_info

    return InfoReport(remembered_info(profile, lambda: profile_info(profile)))
