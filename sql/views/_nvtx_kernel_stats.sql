-- name: _nvtx_kernel_stats
-- kind: view
-- params: none
-- needs: nvtx_kernel_groups
-- _nvtx_kernel_stats: the rows of `nvtx-kernels` with its defaults (nvtx_kernel_groups: thread attribution,
-- inclusive, demangled names, without CUDA graphs), unordered. The columnar cache stores it (one grouping of every
-- kernel in every range that holds it, made once), so a warm `nvtx-kernels` reads a few hundred rows; any other
-- attribution, name or option groups the attribution again.
-- Columns: those of nvtx_kernel_groups.
SELECT * FROM nvtx_kernel_groups('thread', false, 'demangled', false)
