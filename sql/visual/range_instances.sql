-- name: range_instances
-- kind: query
-- params: $pattern
-- needs: _nvtx_ranges
-- range_instances: the instances of the NVTX range(s) named $pattern, in start order, for `--range NAME
-- --instance N`. $pattern matches as in kernels_in_range: the range's text ('forward'), its name as nsys prints
-- it (':forward', 'train_loop:step_0') or a glob over either ('step_*').
-- Params: $pattern: range name or glob.
SELECT
    row_number() OVER (ORDER BY start_ns, range_id) AS instance, -- 1, 2, ... in start order
    name,                                      -- 'domain:text' as nsys prints it
    start_ns,                                  -- range start (ns)
    end_ns                                     -- range end (ns)
FROM _nvtx_ranges
WHERE text = $pattern OR name = $pattern OR text GLOB $pattern OR name GLOB $pattern
ORDER BY instance
