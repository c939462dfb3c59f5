-- name: range_gpu_times
-- kind: query
-- params: $after_ns, $attribution, $ops, $range, $warmup
-- needs: _nvtx_ranges, warm_reach
-- range_gpu_times: for each instance of the NVTX ranges matching $range (text, full name or a glob over either), its
-- CPU time, the GPU projection of the GPU operations launched inside it, and the time from its start to the end of
-- its last GPU operation (what a timer around it with a device synchronize measures), with whether it is warm-up.
-- Parameters: $range; $attribution ('thread' | 'process' | 'gpu', see kernel_ranges);
-- $warmup (range holding warm-up work, NULL: none); $after_ns (instances starting before it are warm-up, NULL: none);
-- $ops (the attribution read: _op_ranges, or a table of its rows holding at least those of mode $attribution in the
-- $range ranges, as sql/attention/attributed_ops.sql makes).
WITH instances AS (
    SELECT r.range_id, r.start_ns, r.end_ns, r.duration_ns,
        ($after_ns IS NOT NULL AND r.start_ns < $after_ns)
            OR coalesce(w.reach_ns >= r.end_ns, false)
            AS in_warmup
    FROM _nvtx_ranges AS r
    ASOF LEFT JOIN warm_reach($warmup) AS w ON w.pid = r.pid AND r.start_ns >= w.start_ns
    WHERE r.text = $range OR r.name = $range OR r.text GLOB $range OR r.name GLOB $range
),
gpu AS (
    SELECT o.range_id, min(o.start_ns) AS gpu_start_ns, max(o.end_ns) AS gpu_end_ns, count(*) AS ops
    FROM $ops AS o
    WHERE o.attribution = $attribution AND o.range_id IN (SELECT range_id FROM instances)
    GROUP BY o.range_id
)
SELECT
    i.range_id AS range_id,                    -- NVTX_EVENTS row id
    i.start_ns AS start_ns,                    -- range start (ns)
    i.duration_ns AS range_ns,                 -- CPU time of the range: push to pop (ns)
    g.gpu_end_ns - g.gpu_start_ns AS gpu_projection_ns, -- first GPU start to last GPU end of its work (ns; nsys'
                                               -- nvtx_gpu_proj_sum); NULL when it launched none
    greatest(i.end_ns, g.gpu_end_ns) - i.start_ns AS to_gpu_end_ns, -- range start to its work's last GPU end, or to
                                               -- its own end if that is later (ns)
    coalesce(g.ops, 0) AS gpu_ops,             -- kernels, copies and memsets launched inside it
    i.in_warmup AS in_warmup                   -- inside a warm-up range, or before $after_ns
FROM instances AS i
LEFT JOIN gpu AS g ON g.range_id = i.range_id
ORDER BY start_ns, range_id
