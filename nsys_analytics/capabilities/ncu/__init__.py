"""Nsight Compute reports (`.ncu-rep`, or `ncu --csv --page raw` exports) in the same query layer."""
