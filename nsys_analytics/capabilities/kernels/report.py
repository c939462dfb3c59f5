"""Top kernels: `nsys stats --report cuda_gpu_kern_sum` and `cuda_gpu_kern_gb_sum`, cell for cell."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.errors import MissingDataError
from ...core.filters import KernelFilter
from ...core.result import Result
from ...core.rounding import nsys_round

# Our column -> nsys' CSV header, in nsys' order.
NSYS_HEADERS = {
    "time_pct": "Time (%)",
    "total_time_ns": "Total Time (ns)",
    "instances": "Instances",
    "avg_ns": "Avg (ns)",
    "med_ns": "Med (ns)",
    "min_ns": "Min (ns)",
    "max_ns": "Max (ns)",
    "stddev_ns": "StdDev (ns)",
    "grid_xyz": "GridXYZ",
    "block_xyz": "BlockXYZ",
    "name": "Name",
}
_ROUNDED = ("time_pct", "avg_ns", "med_ns", "stddev_ns")

if TYPE_CHECKING:
    from ...data.profile import Profile


def kernel_summary(
    profile: "Profile", filters: KernelFilter = KernelFilter(), by_launch: bool = False, limit: int | None = None,
    graphs: bool = False,
) -> Result:
    """Kernels grouped by name (and grid/block with `by_launch`), heaviest first, rounded like nsys. `graphs`: whole
    CUDA graph executions too, as `[CUDA graph N]` rows (nsys leaves them out; a note says how much)."""
    if not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        raise MissingDataError(
            f"{profile.path}: has no CUDA kernels; profile with `nsys profile --trace=cuda` "
            "(on WSL2 kernel tracing may be unavailable)"
        )
    query = "kernel_summary_by_launch" if by_launch else "kernel_summary"
    result = profile.run_file("kernels", query, {**filters.params(), "limit": limit, "graphs": graphs})
    rounded = [result.columns.index(c) for c in _ROUNDED]
    result.rows = [
        tuple(nsys_round(v) if i in rounded else v for i, v in enumerate(row)) for row in result.rows
    ]
    result.headers = [NSYS_HEADERS[c] for c in result.columns]
    result.notes.append("Time (%) is each kernel's share of the summed GPU time of the kernels listed." if limit is None
                        else "Time (%) is each kernel's share of the summed GPU time of all the kernels the report "
                             f"covers; --limit shows the {limit:,} heaviest.")
    result.notes.extend(graph_note(profile, graphs))
    return result


def graph_note(profile: Profile, included: bool, how: str = "as [CUDA graph N] rows") -> list[str]:
    """The line saying what whole CUDA graph executions (graph_executions) a report leaves out or adds; none when
    the profile has none."""
    if not profile.has_table("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"):
        return []
    n, total = profile.sql("SELECT count(*), coalesce(sum(duration_ns), 0) FROM graph_executions").rows[0]
    if not n:
        return []
    what = f"{n:,} whole CUDA graph execution{'s' if n != 1 else ''} ({total / 1e6:,.3f} ms of GPU time)"
    if included:
        return [f"Includes {what} {how}; nsys stats leaves them out."]
    return [(f"Note: {what} are not in this table, as in nsys stats (the profile traced graphs whole, "
             f"--cuda-graph-trace=graph); --graphs adds them {how}.")]
