-- name: range_durations
-- kind: query
-- params: none
-- needs: _range_durations
-- range_durations: how often each NVTX range duration occurs, per range name and style: the distributions `diff`
-- and the run catalog compare (with an attribution, range_kernels counts the instances' kernel times alike).
-- Grouped by the database, not in Python: 47 k instances of a 1 M-kernel profile come back as a few hundred rows
-- (_range_durations, which the columnar cache stores).
-- Ordered by name, style, duration.
SELECT name, style, duration_ns, instances
FROM _range_durations
ORDER BY name, style, duration_ns
