-- name: timeline_columns
-- kind: query
-- params: $bucket_ns, $coarse, $events, $ns_per_px, $origin, $t0, $t1
-- needs: _serve_buckets, _serve_events, _serve_wide
-- timeline_columns: the level-of-detail answer of the `serve` timeline for the window [$t0, $t1): per lane and
-- pixel column ($ns_per_px wide, column 0 at $t0) the summed time of its intervals inside that column and the
-- colour id holding most of it. Columns are found by integer division, never by joining intervals with columns:
-- an interval inside one column adds its (clipped) length to it; one that crosses column edges (wider than a
-- pixel; timeline_events lists those) is cut at the edges it crosses, so every column's sum is exact.
-- On the coarse grid ($coarse: $t0, $t1 and $ns_per_px whole buckets from $origin) the intervals are those that
-- cross a bucket edge ($events = _serve_wide) and the rest comes from the bucket sums (_serve_buckets): each
-- bucket lies inside one column, so its sums go to that column whole. Otherwise $events is _serve_events.
-- Params: $events (the interval table); $coarse; $origin, $bucket_ns (the grid, ns); $t0, $t1, $ns_per_px (ns).
WITH hit AS NOT MATERIALIZED (  -- read in place by both branches, not copied first
    SELECT lane, cat, greatest(start_ns, $t0) AS s, least(end_ns, $t1) AS e
    FROM $events
    WHERE start_ns < $t1 AND end_ns > $t0
),
cols AS NOT MATERIALIZED (
    SELECT lane, cat, s, e, (s - $t0) // $ns_per_px AS c0, (e - 1 - $t0) // $ns_per_px AS c1
    FROM hit
),
pieces AS (
    SELECT lane, cat, ($origin + bucket * $bucket_ns - $t0) // $ns_per_px AS col, busy_ns AS busy
    FROM _serve_buckets
    WHERE $coarse AND bucket >= ($t0 - $origin) // $bucket_ns AND bucket < ($t1 - $origin) // $bucket_ns
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
