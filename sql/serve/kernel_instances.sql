-- name: kernel_instances
-- kind: query
-- params: $limit, $name
-- needs: _kernel_rows
-- kernel_instances: the executions of the kernel named $name (demangled, as `kernels` lists it), in time order,
-- the first $limit; the `serve` viewer's drill-down from a kernel.
-- Params: $name: the demangled name; $limit: rows at most.
SELECT
    start_ns,                                  -- GPU start (ns, profile clock)
    end_ns,                                    -- GPU end (ns)
    duration_ns,                               -- execution time (ns)
    device,                                    -- CUDA device id
    stream,                                    -- CUDA stream id
    pid,                                       -- process
    grid_x,                                    -- grid size in x (blocks)
    grid_y,                                    -- grid size in y
    grid_z,                                    -- grid size in z
    block_x,                                   -- block size in x (threads)
    block_y,                                   -- block size in y
    block_z,                                   -- block size in z
    registers_per_thread,                      -- registers per thread
    short_name                                 -- base name (nsys :base; Nsight Compute's kernel name)
FROM _kernel_rows
WHERE name = $name
ORDER BY start_ns, device, stream
LIMIT $limit
