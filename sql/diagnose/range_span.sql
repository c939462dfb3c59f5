-- name: range_span
-- kind: query
-- params: $pattern
-- needs: _nvtx_ranges
-- range_span: the instances of the NVTX range(s) named $pattern and the envelope of their time windows, the
-- span `diagnose --range` restricts itself to. $pattern matches as in kernels_in_range: the range's text
-- ('forward'), its name as nsys prints it (':forward', 'train_loop:step_0') or a glob over either ('step_*').
-- Params: $pattern: range name or glob.
SELECT
    count(*) AS instances,                     -- matching range instances
    count(DISTINCT name) AS names,             -- distinct names among them
    min(start_ns) AS start_ns,                 -- earliest start (ns)
    max(end_ns) AS end_ns                      -- latest end (ns)
FROM _nvtx_ranges
WHERE text = $pattern OR name = $pattern OR text GLOB $pattern OR name GLOB $pattern
