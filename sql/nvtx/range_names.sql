-- name: range_names
-- kind: query
-- params: none
-- needs: _nvtx_ranges
-- range_names: every NVTX range name of the profile with its instance count, to check that the ranges a
-- report needs exist and to name the ones that do in an error message.
-- No parameters.
SELECT
    name,                                      -- full name as nsys prints it ('domain:text', ':forward')
    coalesce(text, '') AS text,                -- the range's own text ('forward')
    count(*) AS instances                      -- ranges of this name
FROM _nvtx_ranges
GROUP BY ALL
ORDER BY name, text
