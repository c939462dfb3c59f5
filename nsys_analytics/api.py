"""The Python API: `open()` and the user-facing `Profile`, whose convenience calls delegate to the capabilities.

    >>> p = nsys_analytics.open("train.sqlite")
    >>> p.kernel_summary(limit=10)          # kernels/
    >>> p.breakdown(basis="gpu-busy")       # breakdown/
    >>> p.df("SELECT * FROM kernels")       # the data access underneath (profile.py)

Capabilities are imported inside the calls, so `import nsys_analytics` stays quick. Nothing below imports this.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from . import profile as data_access

if TYPE_CHECKING:
    from .ncu.report import NcuReport


class Profile(data_access.Profile):
    """An nsys profile opened read-only: SQL over the normalized views (`sql()`, `df()`) and the reports as
    DataFrames (`kernel_summary()`, `kernel_categories()`, `breakdown()`).

    >>> p = nsys_analytics.open("run.sqlite")
    >>> p.df("SELECT name, sum(duration_ns) FROM kernels GROUP BY name")
    """

    def kernel_summary(self, by_launch: bool = False, limit: int | None = None, **filters):
        """Top kernels, = `nsys stats --report cuda_gpu_kern_sum` (`by_launch`: `cuda_gpu_kern_gb_sum`).

        Filters: name_kind ('demangled'|'short'|'mangled'), device, stream, pid, start_ns, end_ns, match.
        """
        from .filters import KernelFilter
        from .kernels.report import kernel_summary

        return kernel_summary(self, KernelFilter(**filters), by_launch, limit).to_pandas()

    def kernel_categories(self, rules=None, unmatched: bool = False, **filters):
        """Each kernel name with its category, rule and tags (= `nsys-analytics classify`).

        `rules`: TOML file(s) merged over the built-in rules (docs/categories.md). Filters as in kernel_summary.
        """
        from .categories.classify import classify_kernels
        from .categories.rules import load_rules
        from .filters import KernelFilter

        return classify_kernels(self, load_rules(rules), KernelFilter(**filters), unmatched).to_pandas()

    def breakdown(self, basis: str = "kernel", level: str = "category", rules=None, top: int | None = None,
                  memory_ops: bool = True, by: str | None = None, ranges: list[str] | None = None, **filters):
        """GPU time by kernel category (= `nsys-analytics breakdown`) as a DataFrame.

        basis: 'kernel' | 'gpu-busy' | 'wall'; level: 'category' | 'group' (matmul vs non-matmul) |
        'kernel' (heaviest non-matmul kernels); by='range': one column pair per NVTX range (`ranges`).
        Filters as in kernel_summary.
        """
        from .breakdown.report import breakdown_frame

        return breakdown_frame(self, basis, level, rules, top, memory_ops, by, ranges, **filters)

    def attach(self, path: str | Path, alias: str) -> Profile | NcuReport:
        """Open another profile on the same connection; its views live under `alias.` (e.g. `b.kernels`).
        An Nsight Compute report's tables come the same way (e.g. `n.ncu_metrics`)."""
        data_access.check_alias(alias)
        from .ncu import source as ncu_source

        if ncu_source.is_ncu_input(path):
            from .ncu.report import NcuReport

            return NcuReport(path, con=self.con, alias=alias)
        return super().attach(path, alias)


def open(path: str | Path) -> Profile | NcuReport:  # noqa: A001 - mirrors the builtin, as users expect
    """Open an nsys export (.sqlite) or report (.nsys-rep, exported once with the nsys CLI), or an Nsight Compute
    report (.ncu-rep, or an `ncu --csv --page raw` export) as an `NcuReport` with the same `sql()` / `df()`."""
    from .ncu import source as ncu_source

    if getattr(path, "is_rank", False):  # a ProfileSet member: its file, restricted to its process
        return path.open()
    if ncu_source.is_ncu_input(path):
        from .ncu.report import NcuReport

        return NcuReport(path)
    return Profile(path)
