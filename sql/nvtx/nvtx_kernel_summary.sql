-- name: nvtx_kernel_summary
-- kind: query
-- params: $attribution, $exclusive, $graphs, $name_kind
-- needs: nvtx_kernel_groups
-- nvtx_kernel_summary: GPU time of kernels per NVTX range, thread and kernel name, = `nsys stats --report
-- nvtx_kern_sum` with $attribution 'thread' (inclusive). Needs: nvtx_kernel_groups (the rows and their columns).
-- Parameters: $graphs (whole CUDA graph executions too, as '[CUDA graph N]'; nsys: false), $attribution ('thread' |
-- 'process' | 'gpu'), $exclusive (innermost range only), $name_kind ('demangled' | 'short' | 'mangled', as
-- kernels_in). Unrounded. Ordered as nsys: range name (empty first), PID, TID, total time descending (then kernel
-- name). With the defaults (thread, inclusive, demangled, no graphs) the report reads the same rows from
-- _nvtx_kernel_stats, which the columnar cache stores, in place of the nvtx_kernel_groups call (nvtx/report.py).
-- Columns: those of nvtx_kernel_groups.
SELECT *
FROM nvtx_kernel_groups($attribution, $exclusive, $name_kind, $graphs)
ORDER BY range NULLS FIRST, pid NULLS FIRST, tid NULLS FIRST, total_time_ns DESC, kernel_name
