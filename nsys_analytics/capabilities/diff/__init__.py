"""`diff`: two profiles (or two sets of ranks) compared per kernel, category, NVTX range and rank, with a rank test
that says which changes are beyond noise.

The constants the command line declares its options with live here, so that declaring them (`runs --help`, `runs
list`, which share diff's options) imports nothing else of the package."""

ALPHA = 0.05  # a change is beyond noise when the rank test's p-value (BH-adjusted for many rows) is below this
ATTRIBUTIONS = ("auto", "process", "thread", "gpu", "none")  # diff --attribution
TABLES = ("kernels", "categories", "ranges", "range_categories", "ranks", "runs")  # diff --table
WINDOWS = ("steady", "all")  # diff --window: the steady-state steps, per step; the whole capture, per run
