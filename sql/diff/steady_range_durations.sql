-- name: steady_range_durations
-- kind: query
-- params: $from_ns, $steady_warmup, $to_ns
-- needs: _nvtx_ranges
-- steady_range_durations: range_durations (how often each NVTX range duration occurs, per range name and style)
-- over the steady state only: the instances that start within [$from_ns, $to_ns], the span of the kept step
-- instances (nsys_analytics/nvtx/steady.py), outside the warm-up range.
-- Parameters: $from_ns, $to_ns (the window), $steady_warmup (warm-up range, NULL: none).
WITH warm AS (
    SELECT pid, start_ns, end_ns FROM _nvtx_ranges WHERE text = $steady_warmup OR name = $steady_warmup
)
SELECT
    r.name,                                    -- range name ('domain:text')
    r.style,                                   -- PushPop or StartEnd
    r.duration_ns,                             -- one range duration (ns)
    count(*) AS instances                      -- steady-state instances of this name and style that lasted this long
FROM _nvtx_ranges AS r
WHERE r.start_ns BETWEEN $from_ns AND $to_ns
  AND NOT EXISTS (SELECT 1 FROM warm AS w WHERE w.pid = r.pid AND w.start_ns <= r.start_ns AND r.end_ns <= w.end_ns)
GROUP BY r.name, r.style, r.duration_ns
ORDER BY r.name, r.style, r.duration_ns
