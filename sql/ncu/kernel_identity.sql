-- name: kernel_identity
-- kind: query
-- params: none
-- needs: ncu_kernels
-- kernel_identity: who each result is, for per-kernel tables: names, NVTX range and launch configuration.
SELECT
    id,                                        -- ncu_kernels.id
    function AS kernel,                        -- bare kernel function name
    name,                                      -- demangled name
    mangled_name,                              -- mangled name (NULL from a CSV)
    nvtx_range,                                -- innermost NVTX push/pop range
    nvtx_path,                                 -- NVTX push/pop stacks
    grid_x || 'x' || grid_y || 'x' || grid_z AS grid, -- grid size, blocks (x*y*z)
    block_x || 'x' || block_y || 'x' || block_z AS block -- block size, threads (x*y*z)
FROM ncu_kernels
ORDER BY id
