-- name: nvtx_projection
-- kind: table_macro
-- params: want_attribution, innermost_only, with_graphs := false
-- needs: _nvtx_ranges, _range_tree, nvtx_attributed_ops
-- nvtx_projection(want_attribution, innermost_only, with_graphs := false): table macro, each NVTX range projected onto the GPU: from the start of
-- the first GPU operation it holds (kernel, copy, memset) to the end of the last, with its place in the range tree.
-- The rows of `nsys stats --report nvtx_gpu_proj_trace` (with want_attribution 'thread' and innermost_only false). With with_graphs, whole CUDA graph executions count too.
-- Ranges holding no GPU operation are left out.
WITH tree AS MATERIALIZED (
    SELECT * FROM _range_tree WHERE attribution = want_attribution
),
projected AS (
    SELECT
        range_id,
        min(start_ns) AS proj_start,
        max(end_ns) - min(start_ns) AS proj_duration,
        count(DISTINCT correlation_id) AS gpu_ops
    FROM nvtx_attributed_ops(want_attribution, innermost_only, with_graphs := with_graphs)
    WHERE range_id IS NOT NULL
    GROUP BY range_id
),
children AS (
    SELECT t.parent_id AS range_id, count(*) AS n
    FROM projected AS p
    JOIN tree AS t ON t.range_id = p.range_id
    GROUP BY t.parent_id
)
SELECT
    r.name,                                    -- range name ('domain:text')
    p.proj_start AS projected_start_ns,        -- GPU start of its first operation (ns)
    p.proj_duration AS projected_duration_ns,  -- from there to the GPU end of its last operation (ns)
    r.start_ns AS orig_start_ns,               -- the range's own start (ns)
    r.duration_ns AS orig_duration_ns,         -- the range's own duration (ns)
    r.style,                                   -- PushPop or StartEnd
    r.pid,                                     -- process
    r.tid,                                     -- thread that started the range
    p.gpu_ops,                                 -- GPU operations it holds (a graph launch counts once, as in nsys)
    t.level,                                   -- nesting level, 0 at the top (nsys' Lvl)
    coalesce(c.n, 0) AS num_child,             -- child ranges that hold GPU operations too
    r.range_id,                                -- NVTX_EVENTS row id (nsys' RangeId)
    t.parent_id,                               -- the enclosing range's id
    t.stack AS range_stack                     -- ids from the top range down to this one
FROM projected AS p
JOIN _nvtx_ranges AS r ON r.range_id = p.range_id
LEFT JOIN tree AS t ON t.range_id = p.range_id
LEFT JOIN children AS c ON c.range_id = p.range_id
