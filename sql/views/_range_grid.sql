-- name: _range_grid
-- kind: view
-- params: none
-- needs: _range_keys
-- _range_grid: for the thread and process attribution, the time grid of each key: buckets of 2^shift ns, about a
-- quarter of the key's mean range length. A range lies in (end - start) / 2^shift + 1 buckets, so the ranges
-- give at most about six bucket rows each (_range_buckets), and a launch is looked up in its one bucket.
SELECT
    attribution,                               -- 'thread' or 'process'
    key,                                       -- thread or process key (see _range_keys)
    greatest(0, ceil(log2(greatest(1, sum(end_ns - start_ns + 1) / (4 * count(*))))))::INTEGER AS shift
                                               -- bucket of a time t: t >> shift
FROM _range_keys
WHERE attribution IN ('thread', 'process')
GROUP BY attribution, key
