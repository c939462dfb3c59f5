-- name: nvtx_gpu_projection
-- kind: query
-- params: $attribution, $exclusive, $graphs
-- needs: nvtx_projection
-- nvtx_gpu_projection: NVTX ranges projected onto the GPU, one row per range instance,
-- = `nsys stats --report nvtx_gpu_proj_trace` with $attribution 'thread' and $exclusive false.
-- Needs: nvtx_projection (with the defaults, thread and not exclusive and no graphs, the report reads the same
-- rows from _nvtx_range_projection, which the columnar cache stores, in place of the call: nvtx/report.py).
-- Parameters: $graphs (whole CUDA graph executions too; nsys: false), $attribution ('thread' | 'process' | 'gpu'),
-- $exclusive (innermost range only).
-- Ordered as nsys: by the range's own start, then range id (not by projected start: with several
-- processes the two orders differ, and nsys keeps the ranges' order).
SELECT
    name,                                      -- range name ('domain:text')
    projected_start_ns,                        -- GPU start of its first operation (ns)
    projected_duration_ns,                     -- to the GPU end of its last operation (ns)
    orig_start_ns,                             -- the range's own start (ns)
    orig_duration_ns,                          -- the range's own duration (ns)
    style,                                     -- PushPop or StartEnd
    pid,                                       -- process
    tid,                                       -- thread that started the range
    gpu_ops,                                   -- GPU operations it holds
    level,                                     -- nesting level (0 = top)
    num_child,                                 -- child ranges holding GPU operations
    range_id,                                  -- NVTX_EVENTS row id
    parent_id,                                 -- enclosing range's id
    range_stack                                -- ids from the top range down to this one
FROM nvtx_projection($attribution, $exclusive, with_graphs := $graphs)
ORDER BY orig_start_ns, range_id
