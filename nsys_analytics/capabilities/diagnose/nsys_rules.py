"""The six `nsys analyze` rules, cell for cell: which tables each needs, its options, its CSV headers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...data import sql_files
from ...core.result import Result
from .data import Window

if TYPE_CHECKING:
    from ...data.profile import Profile

_CUDA = "Does the application use CUDA {what}?"
_TRACE = "capture it with `nsys profile --trace=cuda`"


@dataclass(frozen=True)
class NsysOptions:
    """nsys analyze's rule options: rows (None: no limit), gap=ms, threshold=%, chunks=N."""

    rows: int | None = 50
    gap_ms: int = 500
    threshold_pct: int = 50
    chunks: int = 30


@dataclass(frozen=True)
class NsysRule:
    name: str
    title: str
    needs: tuple[tuple[str, str], ...]  # (raw table, what nsys asks about when it is missing)
    headers: tuple[str, ...]
    advice: str  # `{cpu}`: where to see what the CPU did (findings.cpu_advice)
    params: Callable[[NsysOptions], dict]
    mb_column: str | None = None  # column shown in MB with three decimals, as nsys does
    nouns: tuple[str, str] = ("row", "rows")  # what a row is, one and several, in the finding ("1,435 calls")


@dataclass
class RuleOutcome:
    """What one nsys rule gave: rows (`result`, at most --rows) or the reason it was skipped; `total_rows` and
    `total_ns` count every row the rule has, shown or not, and `by_pid` the same per process ({pid: (rows, ns)})."""

    rule: NsysRule
    result: Result | None = None
    skipped: str | None = None
    total_rows: int = 0
    total_ns: int = 0
    by_pid: dict[int, tuple[int, int]] = field(default_factory=dict)


_COPY_HEADERS = ("Duration (ns)", "Start (ns)", "Src Kind", "Dst Kind", "Bytes (MB)", "PID", "Device ID",
                 "Context ID", "Green Context ID", "Stream ID", "API Name")
_GPU_OPS = (("CUPTI_ACTIVITY_KIND_KERNEL", "kernels"),)
_RUNTIME = ("CUPTI_ACTIVITY_KIND_RUNTIME", "runtime APIs")

NSYS_RULES: dict[str, NsysRule] = {r.name: r for r in (
    NsysRule(
        "cuda_memcpy_async", "CUDA Async Memcpy with Pageable Memory",
        (_RUNTIME, ("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy APIs")), _COPY_HEADERS,
        "Asynchronous copies from or to pageable memory block and run synchronously; use pinned memory.",
        lambda o: {}, "bytes", nouns=("copy", "copies"),
    ),
    NsysRule(
        "cuda_memcpy_sync", "CUDA Synchronous Memcpy",
        (_RUNTIME, ("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy APIs")), _COPY_HEADERS,
        "Synchronous copies block the host; use cudaMemcpyAsync with pinned memory.",
        lambda o: {}, "bytes", nouns=("copy", "copies"),
    ),
    NsysRule(
        "cuda_memset_sync", "CUDA Synchronous Memset",
        (_RUNTIME, ("CUPTI_ACTIVITY_KIND_MEMSET", "memset APIs")),
        ("Duration (ns)", "Start (ns)", "Memory Kind", "Bytes (MB)", "PID", "Device ID", "Context ID",
         "Green Context ID", "Stream ID", "API Name"),
        "Synchronous memsets block the host; use cudaMemsetAsync.",
        lambda o: {}, "bytes", nouns=("memset", "memsets"),
    ),
    NsysRule(
        "cuda_api_sync", "CUDA Synchronization APIs", (_RUNTIME,),
        ("Duration (ns)", "Start (ns)", "PID", "TID", "API Name"),
        "Synchronization calls block the host until the GPU is done; avoid them in the loop or use events.",
        lambda o: {}, nouns=("call", "calls"),
    ),
    NsysRule(
        "gpu_gaps", "GPU Gaps", _GPU_OPS,
        ("Row#", "Duration (ns)", "Start (ns)", "PID", "Device ID", "Context ID"),
        "The GPU is idle in these ranges; {cpu}.",
        lambda o: {"threshold_ns": o.gap_ms * 1_000_000}, nouns=("gap", "gaps"),
    ),
    NsysRule(
        "gpu_time_util", "GPU Time Utilization", _GPU_OPS,
        ("Row#", "In-Use (%)", "Duration (ns)", "Start (ns)", "PID", "Device ID", "Context ID"),
        "The GPU is mostly idle in these stretches; {cpu}.",
        lambda o: {"chunks": o.chunks, "threshold_pct": o.threshold_pct}, nouns=("stretch", "stretches"),
    ),
)}


def run_nsys_rule(profile: Profile, rule: NsysRule, window: Window, options: NsysOptions) -> RuleOutcome:
    """Run one rule on a profile prepared with `data.prepare` for `window`."""
    missing = _missing_data(profile, rule)
    if missing:
        return RuleOutcome(rule, skipped=missing)
    params = {**window.params(), **rule.params(options), "rows": options.rows}
    result = profile.run_file("diagnose", rule.name, params)
    by_pid = _totals(profile, rule, params, result)
    outcome = RuleOutcome(rule, result, None, sum(n for n, _ in by_pid.values()),
                          sum(ns for _, ns in by_pid.values()), by_pid)
    if rule.mb_column:
        i = result.columns.index(rule.mb_column)
        result.rows = [(*r[:i], _mb(r[i]), *r[i + 1:]) for r in result.rows]
    result.headers = list(rule.headers)
    return outcome


def _totals(profile: Profile, rule: NsysRule, params: dict, result: Result) -> dict[int, tuple[int, int]]:
    """{pid: (rows, summed duration_ns)} of every row of the rule: those shown, or when --rows cut them, a count over
    the rule's query without the limit (the database counts; no row comes to Python)."""
    if params["rows"] is None or len(result.rows) < params["rows"]:
        totals: dict[int, tuple[int, int]] = {}
        for pid, duration in zip(result.column("pid"), result.column("duration_ns")):
            n, ns = totals.get(pid, (0, 0))
            totals[pid] = (n + 1, ns + int(duration))
        return totals
    from .data import query_body

    body = sql_files.inline_params(query_body(rule.name), {**params, "rows": None})
    rows = profile.sql(f"SELECT pid, count(*), coalesce(sum(duration_ns), 0) FROM ({body}) AS every_row "
                       "GROUP BY pid").rows
    return {pid: (int(n), int(ns)) for pid, n, ns in rows}


def _missing_data(profile: Profile, rule: NsysRule) -> str | None:
    """nsys' SKIPPED message for the first table the rule needs and the file lacks, with the fix."""
    for table, what in rule.needs:
        if not profile.has_table(table):
            if rule.name.startswith("gpu_") and any(
                profile.has_table(t) for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                                              "CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
            ):
                continue  # nsys' GPU rules read kernels, copies and memsets: any one of them will do
            return (f"{profile.path.name} could not be analyzed because it does not contain the required "
                    f"CUDA data. {_CUDA.format(what=what)} ({_TRACE})")
    return None


def _mb(value: int | None) -> str:
    return "" if value is None else f"{value / 1e6:.3f}"
