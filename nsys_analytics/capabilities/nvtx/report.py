"""NVTX range reports: `nsys stats` nvtx_sum, nvtx_kern_sum, nvtx_gpu_proj_sum / _trace, cell for cell, plus
attribution modes beyond nsys (`process`, `gpu`), exclusive totals and per-instance rows. See docs/nvtx.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...data import sql_files
from ...core.errors import MissingDataError, UsageError
from ...core.filters import ATTRIBUTIONS, NAME_KINDS
from ..kernels.report import graph_note
from ...core.result import Result
from ...core.rounding import nsys_round

if TYPE_CHECKING:
    from ...data.profile import Profile

# Our column -> nsys' CSV header, in nsys' order, per report.
RANGE_HEADERS = {
    "time_pct": "Time (%)", "total_time_ns": "Total Time (ns)", "instances": "Instances", "avg_ns": "Avg (ns)",
    "med_ns": "Med (ns)", "min_ns": "Min (ns)", "max_ns": "Max (ns)", "stddev_ns": "StdDev (ns)",
    "style": "Style", "range": "Range",
}
KERNEL_HEADERS = {
    "range": "NVTX Range", "style": "Style", "pid": "PID", "tid": "TID", "range_instances": "NVTX Inst",
    "kernel_instances": "Kern Inst", "total_time_ns": "Total Time (ns)", "avg_ns": "Avg (ns)",
    "med_ns": "Med (ns)", "min_ns": "Min (ns)", "max_ns": "Max (ns)", "stddev_ns": "StdDev (ns)",
    "kernel_name": "Kernel Name",
}
PROJECTION_HEADERS = {
    "name": "Name", "projected_start_ns": "Projected Start (ns)", "projected_duration_ns": "Projected Duration (ns)",
    "orig_start_ns": "Orig Start (ns)", "orig_duration_ns": "Orig Duration (ns)", "style": "Style", "pid": "PID",
    "tid": "TID", "gpu_ops": "NumGPUOps", "level": "Lvl", "num_child": "NumChild", "range_id": "RangeId",
    "parent_id": "ParentId", "range_stack": "RangeStack",
}
PROJECTION_SUMMARY_HEADERS = {
    "range": "Range", "style": "Style", "total_proj_time_ns": "Total Proj Time (ns)",
    "total_range_time_ns": "Total Range Time (ns)", "range_instances": "Range Instances",
    "proj_avg_ns": "Proj Avg (ns)", "proj_med_ns": "Proj Med (ns)", "proj_min_ns": "Proj Min (ns)",
    "proj_max_ns": "Proj Max (ns)", "proj_stddev_ns": "Proj StdDev (ns)", "total_gpu_ops": "Total GPU Ops",
    "avg_gpu_ops": "Avg GPU Ops", "avg_range_lvl": "Avg Range Lvl", "avg_num_child": "Avg Num Child",
}
INSTANCE_HEADERS = {
    "range": "NVTX Range", "style": "Style", "pid": "PID", "tid": "TID", "instance": "Instance",
    "range_id": "RangeId", "start_ns": "Start (ns)", "range_time_ns": "Range Time (ns)",
    "kernel_instances": "Kern Inst", "kernel_time_ns": "Kernel Time (ns)",
    "avg_kernel_time_ns": "Avg Kernel Time (ns)", "stddev_kernel_time_ns": "StdDev Kernel Time (ns)",
    "vs_avg_pct": "vs Avg (%)",
}
_NO_NVTX = (
    "{path}: has no NVTX ranges; annotate the code with NVTX ranges and profile with "
    "`nsys profile --trace=cuda,nvtx`"
)
_NO_KERNELS = "{path}: has no CUDA kernels; profile with `nsys profile --trace=cuda,nvtx`"
_NO_GPU_OPS = "{path}: has no CUDA kernels, memory copies or memsets; profile with `nsys profile --trace=cuda,nvtx`"
_GPU_OP_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET")
_NO_API = (
    "{path}: has no CUDA API calls, so kernels cannot be placed in ranges by their launch; profile with "
    "`nsys profile --trace=cuda,nvtx` or use --attribution gpu"
)


def nvtx_summary(profile: Profile) -> Result:
    """Time per NVTX range name and style, = `nsys stats --report nvtx_sum`, rounded like nsys."""
    require_ranges(profile)
    result = profile.run_file("nvtx", "nvtx_range_summary")
    _finish(result, RANGE_HEADERS, ("time_pct", "avg_ns", "med_ns", "stddev_ns"))
    result.notes.append("Time (%) is each range's share of the summed time of all ranges listed.")
    return result


def nvtx_kernel_summary(
    profile: Profile, attribution: str = "thread", exclusive: bool = False, name_kind: str = "demangled",
    graphs: bool = False,
) -> Result:
    """Kernel GPU time per range, thread and kernel name, = `nsys stats --report nvtx_kern_sum` in the default
    `thread` attribution (inclusive); `attribution` and `exclusive` change how kernels are placed in ranges
    (docs/nvtx.md);
    `graphs`: whole CUDA graph executions too, as `[CUDA graph N]` (nsys leaves them out)."""
    _check_options(profile, attribution, name_kind, needs_kernels=True)
    params = {"attribution": attribution, "exclusive": exclusive, "name_kind": name_kind, "graphs": graphs}
    result = _run(profile, "nvtx_kernel_summary", params)
    foreign = _foreign_launches(result)
    _finish(result, KERNEL_HEADERS, ("avg_ns", "med_ns", "stddev_ns"))
    result.notes.extend(attribution_notes(profile, attribution, exclusive, foreign)
                        + graph_note(profile, graphs))
    return result


# The default reports read stored rows (views the columnar cache stores, layout.MATERIALIZED) in place of the
# grouping their query names: (the call in the query, its parameters' defaults, the view holding its rows).
_STORED = (
    *(("nvtx_kernel_groups($attribution, $exclusive, $name_kind, $graphs)",
       {"attribution": attribution, "exclusive": False, "name_kind": "demangled", "graphs": False}, view)
      for attribution, view in (("thread", "_nvtx_kernel_stats"), ("process", "_nvtx_kernel_stats_process"),
                         ("gpu", "_nvtx_kernel_stats_gpu"))),
    ("nvtx_projection($attribution, $exclusive, with_graphs := $graphs)",
     {"attribution": "thread", "exclusive": False, "graphs": False}, "_nvtx_range_projection"),
)


def _run(profile: Profile, name: str, params: dict, stream: bool = False) -> Result:
    """Run sql/nvtx/<name>.sql; with its defaults, on the stored rows (_STORED) instead of the call that groups
    every GPU operation again. The view is that call with those parameters, so the rows are the same."""
    text = sql_files.read("nvtx", name).text
    for call, defaults, view in _STORED:
        if call in text and all(params.get(k) == v for k, v in defaults.items()):
            text = text.replace(call, view)
    return profile.sql(sql_files.inline_params(text, params), stream=stream)


def _foreign_launches(result: Result) -> list[tuple[str, int, str, int]]:
    """Take the summary's two process-mode columns out of it, as the rows of nvtx_foreign_launches: (range, its
    thread, the other launching threads, kernels), heaviest first."""
    counts: dict[tuple[str, int], int] = {}
    tids: dict[tuple[str, int], set[int]] = {}
    n_col, range_col, tid_col = (result.columns.index(c) for c in ("foreign_kernels", "range", "tid"))
    for row in result.rows:
        if row[n_col]:
            key = (row[range_col], row[tid_col])
            counts[key] = counts.get(key, 0) + row[n_col]
            tids.setdefault(key, set()).update(row[n_col + 1])
    result.columns = result.columns[:n_col]
    result.rows = [row[:n_col] for row in result.rows]
    ordered = sorted(counts, key=lambda k: (-counts[k], k))
    return [(rng, tid, ", ".join(map(str, sorted(tids[(rng, tid)]))), counts[(rng, tid)]) for rng, tid in ordered]


def nvtx_gpu_projection(profile: Profile, attribution: str = "thread", exclusive: bool = False,
                        graphs: bool = False, stream: bool = False) -> Result:
    """Each range projected onto the GPU, = `nsys stats --report nvtx_gpu_proj_trace` in `thread` mode (`graphs`:
    whole CUDA graph executions count too, which nsys leaves out).

    `stream`: the rows come in batches (Result.batches; one per range instance, they can be millions)."""
    _check_options(profile, attribution)
    # before the streamed query: it runs queries of its own
    notes = (attribution_notes(profile, attribution, exclusive)
             + graph_note(profile, graphs, "to the ranges' projections"))
    params = {"attribution": attribution, "exclusive": exclusive, "graphs": graphs}
    result = _run(profile, "nvtx_gpu_projection", params, stream=stream)
    _finish(result, PROJECTION_HEADERS, ())
    result.notes.extend(notes)
    return result


def nvtx_gpu_projection_summary(profile: Profile, attribution: str = "thread", exclusive: bool = False,
                                graphs: bool = False) -> Result:
    """Projected GPU time per range name and style, = `nsys stats --report nvtx_gpu_proj_sum` in `thread` mode
    (`graphs`: whole CUDA graph executions count too, which nsys leaves out)."""
    _check_options(profile, attribution)
    params = {"attribution": attribution, "exclusive": exclusive, "graphs": graphs}
    result = _run(profile, "nvtx_gpu_projection_summary", params)
    rounded = ("proj_avg_ns", "proj_med_ns", "proj_stddev_ns", "avg_gpu_ops", "avg_range_lvl", "avg_num_child")
    _finish(result, PROJECTION_SUMMARY_HEADERS, rounded)
    result.notes.extend(attribution_notes(profile, attribution, exclusive)
                        + graph_note(profile, graphs, "to the ranges' projections"))
    return result


def nvtx_range_instances(profile: Profile, attribution: str = "thread", exclusive: bool = False) -> Result:
    """One row per range instance (each `step_3`, each `forward`) with the GPU time of its kernels, and the mean
    and standard deviation of that time over the instances of the same name."""
    _check_options(profile, attribution, needs_kernels=True)
    params = {"attribution": attribution, "exclusive": exclusive}
    result = profile.run_file("nvtx", "nvtx_range_instances", params)
    _finish(result, INSTANCE_HEADERS, ("avg_kernel_time_ns", "stddev_kernel_time_ns", "vs_avg_pct"))
    result.notes.extend(attribution_notes(profile, attribution, exclusive))
    return result


def attribution_notes(profile: Profile, attribution: str, exclusive: bool,
                      foreign: list[tuple] | None = None) -> list[str]:
    """What the numbers mean in this mode, and in `process` mode the ranges that took GPU operations launched by
    other threads (check that they belong there): `foreign` when the caller counted them (kernels only), else
    the rows of nvtx_foreign_launches (all GPU operations)."""
    exclusive_note = " Exclusive: each kernel in its innermost range only." if exclusive else ""
    notes = [_ATTRIBUTION_NOTES[attribution] + exclusive_note]
    if attribution == "process":
        what = "kernel"
        if foreign is None:
            foreign = profile.run_file("nvtx", "nvtx_foreign_launches", {"exclusive": exclusive}).rows
            what = "GPU operation"
        for rng, tid, other_tids, n in foreign[:5]:
            notes.append(
                f"Warning: {rng} (thread {tid}) holds {n:,} {what}{'s' if n != 1 else ''} launched by "
                f"other threads ({other_tids}) during its window; check that they belong to it."
            )
        if len(foreign) > 5:
            notes.append(f"Warning: {len(foreign) - 5} more ranges hold {what}s launched by other threads.")
    return notes


_ATTRIBUTION_NOTES = {
    "thread": "Attribution: thread (nsys' rule): a kernel belongs to a range when the API call that launched it "
              "ran inside the range on the range's thread.",
    "process": "Attribution: process: a kernel belongs to a range when the API call that launched it ran inside "
               "the range's time window, on any thread of the process.",
    "gpu": "Attribution: gpu: a kernel belongs to a range when its GPU execution overlaps the range's time window.",
}


def require_ranges(profile: Profile) -> None:
    """Raise MissingDataError, naming the nsys option to add, when the profile has no NVTX ranges."""
    # The event types of _nvtx_range_times: push/pop and start/end ranges (asked of the raw table, which stops at
    # the first one; the view closes open ranges with a maximum over all events).
    ranges = "SELECT 1 FROM compat.NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71) LIMIT 1"
    if not profile.has_table("NVTX_EVENTS") or not profile.sql(ranges).rows:
        raise MissingDataError(_NO_NVTX.format(path=profile.path))


def _check_options(profile: Profile, attribution: str, name_kind: str = "demangled",
                   needs_kernels: bool = False):
    if attribution not in ATTRIBUTIONS:
        raise UsageError(f"attribution {attribution!r}: choose one of {', '.join(ATTRIBUTIONS)}")
    if name_kind not in NAME_KINDS:
        raise UsageError(f"name kind {name_kind!r}: choose one of {', '.join(NAME_KINDS)}")
    require_ranges(profile)
    if needs_kernels and not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        raise MissingDataError(_NO_KERNELS.format(path=profile.path))
    if not any(profile.has_table(t) for t in _GPU_OP_TABLES):
        raise MissingDataError(_NO_GPU_OPS.format(path=profile.path))
    if attribution != "gpu" and not (profile.has_table("CUPTI_ACTIVITY_KIND_RUNTIME")
                                     or profile.has_table("CUPTI_ACTIVITY_KIND_DRIVER")):
        raise MissingDataError(_NO_API.format(path=profile.path))


def _finish(result: Result, headers: dict[str, str], rounded: tuple[str, ...]) -> None:
    """Round like nsys and set nsys' headers, in place."""
    if rounded:
        idx = {result.columns.index(c) for c in rounded}
        result.rows = [tuple(nsys_round(v) if i in idx else v for i, v in enumerate(row)) for row in result.rows]
    result.headers = [headers[c] for c in result.columns]
