-- nvtx_kernel_summary_stored: nvtx_kernel_summary with its defaults (thread attribution, inclusive, demangled
-- names, without CUDA graphs), read from _nvtx_kernel_stats, which the columnar cache stores: a warm
-- `nvtx-kernels` reads a few hundred rows instead of grouping every kernel in every range that holds it.
-- Needs: _nvtx_kernel_stats. No parameters. Ordered as nvtx_kernel_summary.
SELECT *
FROM _nvtx_kernel_stats
ORDER BY range NULLS FIRST, pid NULLS FIRST, tid NULLS FIRST, total_time_ns DESC, kernel_name
