"""`diff`: two profiles (or two sets of ranks) compared per kernel, category, NVTX range and rank, with a rank test
that says which changes are beyond noise."""
