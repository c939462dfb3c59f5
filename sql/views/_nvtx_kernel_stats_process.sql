-- name: _nvtx_kernel_stats_process
-- kind: view
-- params: none
-- needs: nvtx_kernel_groups
-- _nvtx_kernel_stats_process: the rows of `nvtx-kernels --attribution process` (nvtx_kernel_groups: process attribution,
-- inclusive, demangled names, without CUDA graphs), unordered; stored by the columnar cache as _nvtx_kernel_stats
-- is for the thread attribution.
-- Columns: those of nvtx_kernel_groups.
SELECT * FROM nvtx_kernel_groups('process', false, 'demangled', false)
