-- name: serve_buckets
-- kind: query
-- params: $bucket_ns, $origin
-- needs: _serve_events
-- serve_buckets: the coarse level of the `serve` timeline: the time of the intervals that lie inside one bucket
-- ($bucket_ns wide, from $origin), summed per lane, bucket and colour. A window whose pixel columns are whole
-- buckets on this grid is answered from these sums and the few intervals that cross a bucket edge (serve_wide),
-- not from every interval (timeline_columns.sql on the coarse grid). serve/timeline_window.py stores it as _serve_buckets.
-- Params: $origin: the grid's start (ns, the first interval's start); $bucket_ns: the bucket width (ns).
SELECT
    lane,                                      -- _serve_lanes.lane
    (start_ns - $origin) // $bucket_ns AS bucket, -- bucket number, 0 at $origin
    cat,                                       -- colour id
    sum(end_ns - start_ns)::BIGINT AS busy_ns  -- summed time of the intervals inside the bucket (ns)
FROM _serve_events
WHERE (end_ns - 1 - $origin) // $bucket_ns <= (start_ns - $origin) // $bucket_ns
GROUP BY lane, bucket, cat
ORDER BY bucket, lane, cat
