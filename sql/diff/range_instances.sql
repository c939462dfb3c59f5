-- range_instances: every NVTX range instance with its duration, the per-instance figures `diff` compares.
-- Needs: _nvtx_ranges. Ordered by name, then start.
SELECT
    range_id,                                  -- NVTX_EVENTS row id
    name,                                      -- range name ('domain:text')
    style,                                     -- PushPop or StartEnd
    pid,                                       -- process
    start_ns,                                  -- range start (ns)
    duration_ns                                -- range duration (ns)
FROM _nvtx_ranges
ORDER BY name, start_ns, range_id
