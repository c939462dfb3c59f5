-- name: _range_buckets
-- kind: view
-- params: none
-- needs: _range_grid, _range_keys
-- _range_buckets: each range of the thread and process attribution once for every bucket of _range_grid it
-- overlaps: a time t of the key can only lie in the ranges listed under bucket t >> shift. A hash join on
-- (key, bucket) then a containment test places every launch, in one pass and without sorting the launches.
SELECT
    g.attribution,                             -- 'thread' or 'process'
    g.key,                                     -- thread or process key
    g.grid_id,                                 -- (attribution, key) as one integer (_range_grid)
    unnest(range(r.start_ns >> g.shift, (r.end_ns >> g.shift) + 1)) AS bucket, -- a bucket the range overlaps
    r.range_id,                                -- the range
    r.start_ns,                                -- its start (ns)
    r.end_ns                                   -- its end (ns)
FROM _range_keys AS r
JOIN _range_grid AS g ON g.attribution = r.attribution AND g.key = r.key
