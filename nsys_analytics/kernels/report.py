"""Top kernels: `nsys stats --report cuda_gpu_kern_sum` and `cuda_gpu_kern_gb_sum`, cell for cell."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import MissingDataError
from ..filters import KernelFilter
from ..result import Result
from ..rounding import nsys_round

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
    from ..profile import Profile


def kernel_summary(
    profile: "Profile", filters: KernelFilter = KernelFilter(), by_launch: bool = False, limit: int | None = None
) -> Result:
    """Kernels grouped by name (and grid/block with `by_launch`), heaviest first, rounded like nsys."""
    if not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        raise MissingDataError(
            f"{profile.path}: has no CUDA kernels; profile with `nsys profile --trace=cuda` "
            "(on WSL2 kernel tracing may be unavailable)"
        )
    query = "kernel_summary_by_launch" if by_launch else "kernel_summary"
    result = profile.run_file("kernels", query, {**filters.params(), "limit": limit})
    rounded = [result.columns.index(c) for c in _ROUNDED]
    result.rows = [
        tuple(nsys_round(v) if i in rounded else v for i, v in enumerate(row)) for row in result.rows
    ]
    result.headers = [NSYS_HEADERS[c] for c in result.columns]
    result.notes.append("Time (%) is each kernel's share of the summed GPU time of the kernels listed.")
    return result
