-- name: serve_wide
-- kind: query
-- params: $bucket_ns, $origin
-- needs: _serve_events
-- serve_wide: the intervals of _serve_events that cross an edge of the coarse grid (serve_buckets), in start
-- order: with the bucket sums they make up every interval once. serve/timeline_window.py stores it as _serve_wide.
-- Params: $origin, $bucket_ns: the grid (as serve_buckets).
SELECT
    lane,                                      -- _serve_lanes.lane
    start_ns,                                  -- start (ns)
    end_ns,                                    -- end (ns)
    cat,                                       -- colour id
    item,                                      -- kernel: strings.id of its name; copy: copyKind; NVTX: range_id
    kind                                       -- 0 kernel, 1 copy, 2 memset, 3 NVTX range
FROM _serve_events
WHERE (end_ns - 1 - $origin) // $bucket_ns > (start_ns - $origin) // $bucket_ns
ORDER BY start_ns, lane, end_ns
