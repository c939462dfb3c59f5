-- name: nvtx_projection
-- kind: table_macro
-- params: want_attribution, innermost_only, with_graphs := false
-- needs: _nvtx_ranges, _one_kernel_launches, _range_tree, nvtx_attributed_ops
-- nvtx_projection(want_attribution, innermost_only, with_graphs := false): table macro, each NVTX range projected onto the GPU: from the start of
-- the first GPU operation it holds (kernel, copy, memset) to the end of the last, with its place in the range tree.
-- The rows of `nsys stats --report nvtx_gpu_proj_trace` (with want_attribution 'thread' and innermost_only false). With with_graphs, whole CUDA graph executions count too.
-- Ranges holding no GPU operation are left out.
WITH projected AS (
    SELECT
        range_id,
        min(start_ns) AS proj_start,
        max(end_ns) - min(start_ns) AS proj_duration,
        -- distinct launching calls: a kernel of a one-kernel launch is its call's only operation, and only the
        -- other operations (graph kernels, copies) need the costly distinct count (at 20 M kernels 1.2 of 2.9 s)
        count(*) FILTER (WHERE one_kernel_launch)
            + count(DISTINCT correlation_id) FILTER (WHERE NOT one_kernel_launch) AS gpu_ops
    FROM (
        SELECT *, coalesce(kind = 'kernel' AND launch_name_id IN (SELECT id FROM _one_kernel_launches), false)
                  AS one_kernel_launch
        FROM nvtx_attributed_ops(want_attribution, innermost_only, with_graphs := with_graphs)
    )
    WHERE range_id IS NOT NULL
    GROUP BY range_id
),
placed AS MATERIALIZED (  -- the projected ranges with their place in the tree, read twice below. The tree is read
                          -- once, here: a materialized copy of the whole tree beside the attribution's join starved
                          -- the join of memory (at 20 M kernels 5.4 s instead of 3.1 s)
    SELECT p.*, t.parent_id, t.level, t.stack
    FROM projected AS p
    LEFT JOIN _range_tree AS t ON t.attribution = want_attribution AND t.range_id = p.range_id
),
children AS (
    SELECT parent_id AS range_id, count(*) AS n
    FROM placed
    GROUP BY parent_id
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
    p.level,                                   -- nesting level, 0 at the top (nsys' Lvl)
    coalesce(c.n, 0) AS num_child,             -- child ranges that hold GPU operations too
    r.range_id,                                -- NVTX_EVENTS row id (nsys' RangeId)
    p.parent_id,                               -- the enclosing range's id
    p.stack AS range_stack                     -- ids from the top range down to this one
FROM placed AS p
JOIN _nvtx_ranges AS r ON r.range_id = p.range_id
LEFT JOIN children AS c ON c.range_id = p.range_id
