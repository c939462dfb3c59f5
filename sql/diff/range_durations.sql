-- name: range_durations
-- kind: query
-- params: none
-- needs: _range_durations
-- range_durations: how often each NVTX range duration occurs, per range name and style: the distributions `diff`
-- and the run catalog compare (with an attribution, range_kernels counts the instances' kernel times alike).
-- Grouped by the database, not in Python: 47 k instances of a 1 M-kernel profile come back as a few hundred rows
-- (_range_durations, which the columnar cache stores).
-- Ordered by name, style, duration.
SELECT
    name,                                      -- range name ('domain:text')
    style,                                     -- PushPop or StartEnd
    duration_ns,                               -- one range duration (ns)
    instances                                  -- instances of this name and style that lasted exactly this long
FROM _range_durations
ORDER BY name, style, duration_ns
