-- name: range_instances
-- kind: query
-- params: $after_ns, $range, $warmup
-- needs: _nvtx_ranges, warm_reach
-- range_instances: the instances of the NVTX ranges matching $range (its text or full name, or a glob
-- over either, e.g. 'step_*'), with whether each is warm-up.
-- Parameters: $range; $warmup (range holding warm-up work, NULL: none); $after_ns (instances
-- starting before it are warm-up, NULL: none).
SELECT
    r.range_id AS range_id,                    -- NVTX_EVENTS row id
    r.name AS range,                           -- full name ('domain:text')
    r.start_ns AS start_ns,                    -- range start (ns)
    r.duration_ns AS duration_ns,              -- range duration (ns)
    ($after_ns IS NOT NULL AND r.start_ns < $after_ns)
        OR coalesce(w.reach_ns >= r.end_ns, false)
        AS in_warmup                           -- inside a warm-up range, or before $after_ns
FROM _nvtx_ranges AS r
ASOF LEFT JOIN warm_reach($warmup) AS w ON w.pid = r.pid AND r.start_ns >= w.start_ns
WHERE r.text = $range OR r.name = $range OR r.text GLOB $range OR r.name GLOB $range
ORDER BY start_ns, range_id
