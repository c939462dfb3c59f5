-- name: serve_nvtx_names
-- kind: query
-- params: $first
-- needs: _nvtx_ranges
-- serve_nvtx_names: each NVTX range name with its colour id on the `serve` timeline (the ids after the kernel
-- categories and copy kinds, from $first). serve/timeline_window.py stores it as the temp table _serve_nvtx_names.
-- Params: $first: the first id.
SELECT
    name,                                      -- 'domain:text' as nsys prints it
    ($first + row_number() OVER (ORDER BY name) - 1)::INTEGER AS cat -- colour id of the name
FROM (SELECT DISTINCT name FROM _nvtx_ranges)
ORDER BY cat
