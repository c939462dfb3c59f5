-- name: _nvtx_range_projection
-- kind: view
-- params: none
-- needs: nvtx_projection
-- _nvtx_range_projection: nvtx_projection with its defaults (thread attribution, inclusive, without CUDA
-- graphs): each NVTX range holding GPU operations projected onto the GPU, the rows of `nvtx-gpu` and
-- `nvtx-gpu --trace` (nsys' nvtx_gpu_proj_sum / _trace). The columnar cache stores it (the attribution of every
-- GPU operation and the range tree, made once), so a warm `nvtx-gpu` reads one row per range instance.
-- Columns: those of nvtx_projection.
SELECT * FROM nvtx_projection('thread', false, with_graphs := false)
