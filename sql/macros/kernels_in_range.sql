-- name: kernels_in_range
-- kind: table_macro
-- params: pattern, want_attribution
-- needs: _nvtx_ranges, _op_ranges
-- kernels_in_range(pattern, want_attribution): table macro, the kernels that belong to an NVTX range named `pattern`:
-- its text ('forward'), its full name as nsys prints it (':forward', 'train_loop:step_0') or a glob over either
-- ('step_*', 'train_loop:*'). The filter behind `--range` / `--exclude-range`; a pattern that names no range is
-- an error (a typo would otherwise keep no kernel, or all of them), which Profile turns into the one-line message
-- that lists the profile's ranges.
--   pattern           range name or glob; NULL matches nothing
--   want_attribution  'thread' | 'process' | 'gpu' (see kernel_ranges)
WITH matching AS (
    SELECT range_id
    FROM _nvtx_ranges
    WHERE text = pattern OR name = pattern OR text GLOB pattern OR name GLOB pattern
)
SELECT DISTINCT
    a.op_id AS kernel_id                       -- CUPTI_ACTIVITY_KIND_KERNEL row id
FROM _op_ranges AS a
JOIN matching AS m ON m.range_id = a.range_id
WHERE a.attribution = want_attribution AND a.kind = 'kernel'
UNION ALL
SELECT error(CASE WHEN EXISTS (SELECT 1 FROM _nvtx_ranges)
                  THEN 'unknown NVTX range: ' || pattern
                  ELSE 'the profile has no NVTX ranges' END)::BIGINT
WHERE pattern IS NOT NULL AND NOT EXISTS (SELECT 1 FROM matching)
