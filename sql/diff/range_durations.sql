-- range_durations: how often each NVTX range duration occurs, per range name and style: the distributions `diff`
-- and the run catalog compare when no attribution is asked (range_instances lists the instances one by one, for
-- the per-instance kernel time of an attribution). Grouped here, not in Python: 47 k instances of a 1 M-kernel
-- profile come back as a few hundred rows.
-- Needs: _nvtx_ranges. Ordered by name, style, duration.
SELECT
    name,                                      -- range name ('domain:text')
    style,                                     -- PushPop or StartEnd
    duration_ns,                               -- one range duration (ns)
    count(*) AS instances                      -- instances of this name and style that lasted exactly this long
FROM _nvtx_ranges
GROUP BY name, style, duration_ns
ORDER BY name, style, duration_ns
