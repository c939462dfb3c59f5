-- name: steady_range_durations
-- kind: query
-- params: $from_ns, $steady_warmup, $to_ns
-- needs: _nvtx_ranges, warm_reach
-- steady_range_durations: range_durations (how often each NVTX range duration occurs, per range name and style)
-- over the steady state only: the instances that start within [$from_ns, $to_ns], the span of the kept step
-- instances (nsys_analytics/nvtx/steady.py), outside the warm-up range.
-- Parameters: $from_ns, $to_ns (the window), $steady_warmup (warm-up range, NULL: none).
SELECT
    r.name,                                    -- range name ('domain:text')
    r.style,                                   -- PushPop or StartEnd
    r.duration_ns,                             -- one range duration (ns)
    count(*) AS instances                      -- steady-state instances of this name and style that lasted this long
FROM _nvtx_ranges AS r
ASOF LEFT JOIN warm_reach($steady_warmup) AS w ON w.pid = r.pid AND r.start_ns >= w.start_ns
WHERE r.start_ns BETWEEN $from_ns AND $to_ns
  AND NOT coalesce(w.reach_ns >= r.end_ns, false)
GROUP BY r.name, r.style, r.duration_ns
ORDER BY r.name, r.style, r.duration_ns
