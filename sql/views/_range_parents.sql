-- name: _range_parents
-- kind: view
-- params: none
-- needs: _range_buckets, _range_grid, _range_keys
-- _range_parents: each range's parent in the thread and process attribution (gpu mode shares the process tree):
-- the tightest range of the same key that contains it (the shortest; as nsys' nvtx_gpu_proj_trace defines it),
-- NULL at the top. Of two ranges with the same start and end the one with the lower id is the parent (nsys makes
-- each the other's parent and then lists neither).  The
-- candidates are the ranges listed in the bucket where the range starts, as for a launch call.
WITH located AS (  -- each range with the bucket of its start (a left join: the bucket join below stays an
                  -- equality on (grid_id, bucket), never a join on the key alone)
    SELECT c.attribution, c.key, c.range_id, c.start_ns, c.end_ns, c.start_ns >> g.shift AS bucket, g.grid_id
    FROM _range_keys AS c
    LEFT JOIN _range_grid AS g ON g.attribution = c.attribution AND g.key = c.key
    WHERE c.attribution IN ('thread', 'process')
),
parents AS (
    SELECT
        c.attribution, c.range_id,
        arg_min(s.range_id, (s.end_ns - s.start_ns, -s.start_ns, s.range_id)) AS parent_id
    FROM located AS c
    JOIN _range_buckets AS s ON s.grid_id = c.grid_id AND s.bucket = c.bucket
    WHERE s.range_id <> c.range_id AND s.start_ns <= c.start_ns AND s.end_ns >= c.end_ns
      AND NOT (s.start_ns = c.start_ns AND s.end_ns = c.end_ns AND s.range_id > c.range_id)
    GROUP BY c.attribution, c.range_id
)
SELECT
    k.attribution,                             -- 'thread' or 'process'
    k.range_id,                                -- the range
    p.parent_id                                -- its parent (NULL: a top range)
FROM _range_keys AS k
LEFT JOIN parents AS p ON p.attribution = k.attribution AND p.range_id = k.range_id
WHERE k.attribution IN ('thread', 'process')
