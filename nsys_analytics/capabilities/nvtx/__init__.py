"""NVTX reports: `nvtx`, `nvtx-kernels`, `nvtx-gpu` (report.py; SQL in sql/nvtx/, the attribution views in sql/views/)."""
