-- name: range_instances
-- kind: query
-- params: $after_ns, $range, $warmup
-- needs: _nvtx_ranges
-- range_instances: the instances of the NVTX ranges matching $range (its text or full name, or a glob
-- over either, e.g. 'step_*'), with whether each is warm-up.
-- Parameters: $range; $warmup (range holding warm-up work, NULL: none); $after_ns (instances
-- starting before it are warm-up, NULL: none).
WITH warm AS (
    SELECT pid, start_ns, end_ns FROM _nvtx_ranges WHERE text = $warmup OR name = $warmup
)
SELECT
    r.range_id AS range_id,                    -- NVTX_EVENTS row id
    r.name AS range,                           -- full name ('domain:text')
    r.start_ns AS start_ns,                    -- range start (ns)
    r.duration_ns AS duration_ns,              -- range duration (ns)
    ($after_ns IS NOT NULL AND r.start_ns < $after_ns)
        OR EXISTS (SELECT 1 FROM warm AS w WHERE w.pid = r.pid AND w.start_ns <= r.start_ns AND r.end_ns <= w.end_ns)
        AS in_warmup                           -- inside a warm-up range, or before $after_ns
FROM _nvtx_ranges AS r
WHERE r.text = $range OR r.name = $range OR r.text GLOB $range OR r.name GLOB $range
ORDER BY start_ns, range_id
