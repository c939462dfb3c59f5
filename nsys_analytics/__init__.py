"""nsys-analytics: answers from NVIDIA Nsight Systems profiles, in DuckDB SQL and pandas.

    import nsys_analytics
    profile = nsys_analytics.open("train.sqlite")
    profile.kernel_summary()               # = nsys stats --report cuda_gpu_kern_sum
    profile.df("SELECT * FROM kernels")    # the normalized schema
"""

from .errors import NsysAnalyticsError, ProfileError
from .api import Profile, open
from .result import Result

__all__ = ["NsysAnalyticsError", "Profile", "ProfileError", "Result", "open"]
__version__ = "0.1.0"
