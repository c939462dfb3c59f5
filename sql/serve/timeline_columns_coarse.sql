-- name: timeline_columns_coarse
-- kind: query
-- params: $bucket_ns, $ns_per_px, $origin, $t0, $t1
-- needs: _serve_buckets, _serve_wide
-- timeline_columns_coarse: timeline_columns for a window on the coarse grid ($t0, $t1 and $ns_per_px whole
-- buckets from $origin), read from the bucket sums (serve_buckets) and the intervals that cross a bucket edge
-- (serve_wide) instead of every interval. Each bucket lies inside one column, so its sums go to that column
-- whole; a crossing interval is cut at the column edges it crosses: every column's sum is exact.
-- Needs: _serve_buckets, _serve_wide. Params: the window and grid (ns).
WITH hit AS NOT MATERIALIZED (  -- read in place by both branches, not copied first
    SELECT lane, cat, greatest(start_ns, $t0) AS s, least(end_ns, $t1) AS e
    FROM _serve_wide
    WHERE start_ns < $t1 AND end_ns > $t0
),
cols AS NOT MATERIALIZED (
    SELECT lane, cat, s, e, (s - $t0) // $ns_per_px AS c0, (e - 1 - $t0) // $ns_per_px AS c1
    FROM hit
),
pieces AS (
    SELECT lane, cat, ($origin + bucket * $bucket_ns - $t0) // $ns_per_px AS col, busy_ns AS busy
    FROM _serve_buckets
    WHERE bucket >= ($t0 - $origin) // $bucket_ns AND bucket < ($t1 - $origin) // $bucket_ns
    UNION ALL
    SELECT lane, cat, c0, e - s
    FROM cols
    WHERE c1 <= c0
    UNION ALL
    SELECT lane, cat, col,
           least(e, $t0 + (col + 1) * $ns_per_px) - greatest(s, $t0 + col * $ns_per_px)
    FROM (SELECT lane, cat, s, e, unnest(range(c0, c1 + 1)) AS col FROM cols WHERE c1 > c0)
),
per_cat AS (
    SELECT lane, col, cat, sum(busy) AS busy FROM pieces GROUP BY lane, col, cat
)
SELECT
    lane,                                      -- _serve_lanes.lane
    col::INTEGER AS col,                       -- pixel column, 0 at $t0
    sum(busy)::BIGINT AS busy_ns,              -- summed time of the lane's intervals inside the column (ns)
    first(cat ORDER BY busy DESC, cat) AS cat  -- colour id holding most of that time
FROM per_cat
GROUP BY lane, col
ORDER BY lane, col
