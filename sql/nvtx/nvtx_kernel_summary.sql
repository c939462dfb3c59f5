-- nvtx_kernel_summary: GPU time of kernels per NVTX range, thread and kernel name, = `nsys stats --report
-- nvtx_kern_sum` with $mode 'thread' (inclusive). Needs: nvtx_kernel_groups (the rows and their columns).
-- Parameters: $graphs (whole CUDA graph executions too, as '[CUDA graph N]'; nsys: false), $mode ('thread' |
-- 'process' | 'gpu'), $exclusive (innermost range only), $name_kind ('demangled' | 'short' | 'mangled', as
-- kernels_in). Unrounded. Ordered as nsys: range name (empty first), PID, TID, total time descending (then kernel
-- name). The report's defaults read the same rows stored: nvtx_kernel_summary_stored.
SELECT *
FROM nvtx_kernel_groups($mode, $exclusive, $name_kind, $graphs)
ORDER BY range NULLS FIRST, pid NULLS FIRST, tid NULLS FIRST, total_time_ns DESC, kernel_name
