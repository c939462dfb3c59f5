"""nsys-analytics: answers from NVIDIA Nsight Systems profiles, in DuckDB SQL and pandas.

    import nsys_analytics
    profile = nsys_analytics.open("train.sqlite")
    profile.kernel_summary()               # = nsys stats --report cuda_gpu_kern_sum
    profile.df("SELECT * FROM kernels")    # the normalized schema
    ranks = nsys_analytics.open_set("runs/")  # many profiles as ranks: DataFrames with a `rank` column

    with nsys_analytics.annotate("matmul", M=1024):   # an NVTX range `matmul[M=1024]`
        ...
    nsys_analytics.bench(configs=[...])(fn)           # fn per config under ncu or nsys -> DataFrame
"""

from typing import TYPE_CHECKING

from .core.errors import NsysAnalyticsError, ProfileError

if TYPE_CHECKING:
    from .api import Catalog, Profile, ProfileSet, open, open_set
    from .capabilities.collect.annotate import annotate
    from .capabilities.collect.bench import bench
    from .core.result import Result

__all__ = ["Catalog", "NsysAnalyticsError", "Profile", "ProfileError", "ProfileSet", "Result", "annotate", "bench",
           "open", "open_set"]
__version__ = "0.1.0"


def __getattr__(name: str):
    """Catalog, Profile, ProfileSet, open, open_set, Result, annotate and bench on first use: `import nsys_analytics`
    (and every CLI start, `--help` included) does not pay for DuckDB until a profile is opened."""
    if name in ("Catalog", "Profile", "ProfileSet", "open", "open_set"):
        from . import api

        return getattr(api, name)
    if name == "Result":
        from .core.result import Result

        return Result
    if name == "annotate":
        from .capabilities.collect.annotate import annotate

        return annotate
    if name == "bench":
        from .capabilities.collect.bench import bench

        return bench
    raise AttributeError(f"module 'nsys_analytics' has no attribute {name!r}")
