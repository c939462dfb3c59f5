"""The SQL of nsys-analytics: `views/` and `macros/` build the normalized schema; `<capability>/` holds that
capability's queries, one statement per file (`kernels/`, `nvtx/`, `breakdown/`, `diagnose/`, `ncu/`, ...)."""
