"""nsys-analytics: answers from NVIDIA Nsight Systems profiles, in DuckDB SQL and pandas.

    import nsys_analytics
    profile = nsys_analytics.open("train.sqlite")
    profile.kernel_summary()               # = nsys stats --report cuda_gpu_kern_sum
    profile.df("SELECT * FROM kernels")    # the normalized schema
    ranks = nsys_analytics.open_set("runs/")  # many profiles as ranks: DataFrames with a `rank` column
"""

from .errors import NsysAnalyticsError, ProfileError
from .api import Catalog, Profile, ProfileSet, open, open_set
from .result import Result

__all__ = ["Catalog", "NsysAnalyticsError", "Profile", "ProfileError", "ProfileSet", "Result", "open", "open_set"]
__version__ = "0.1.0"
