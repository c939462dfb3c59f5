-- name: nsys_unprofiled
-- kind: query
-- params: $by
-- needs: _nsys_kernels, ncu_kernels
-- nsys_unprofiled: the nsys kernels whose name no ncu result has (what ncu did not profile), counted and timed.
-- Needs: ncu_kernels, _nsys_kernels (see nsys_match). Parameters: $by, 'mangled' or 'function' (see nsys_match).
SELECT
    count(*) AS kernels,                       -- nsys kernels of names ncu did not profile
    coalesce(sum(duration_ns), 0) AS duration_ns -- their time on the timeline
FROM _nsys_kernels
WHERE CASE WHEN $by = 'mangled' THEN mangled_name ELSE short_name END NOT IN (
    SELECT CASE WHEN $by = 'mangled' THEN mangled_name ELSE function END
    FROM ncu_kernels
    WHERE CASE WHEN $by = 'mangled' THEN mangled_name ELSE function END IS NOT NULL
)
