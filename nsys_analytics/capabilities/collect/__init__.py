"""`collect`: make the profiles the other commands read — `nsys profile` / `ncu` with defaults chosen for them,
NVTX annotations (annotate.py, torch_hooks.py) and nsight-python-style benchmark sweeps (bench.py)."""
