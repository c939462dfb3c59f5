-- nvtx_gpu_projection: NVTX ranges projected onto the GPU, one row per range instance,
-- = `nsys stats --report nvtx_gpu_proj_trace` with $mode 'thread' and $exclusive false.
-- Needs: nvtx_projection. Parameters: $mode ('thread' | 'process' | 'gpu'), $exclusive (innermost range only).
-- Ordered as nsys: projected start, then projected duration descending (then range id).
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
FROM nvtx_projection($mode, $exclusive)
ORDER BY projected_start_ns, projected_duration_ns DESC, range_id
