-- name: _range_grid
-- kind: view
-- params: none
-- needs: _range_keys
-- _range_grid: for the thread and process attribution, the time grid of each key: buckets of 2^shift ns, about the
-- key's mean range length. A range lies in (end - start) / 2^shift + 1 buckets, so the ranges give about three
-- bucket rows each (_range_buckets), and a launch is looked up in its one bucket. (A quarter of the mean length
-- gave about six: at 50 M kernels the 8.8 M bucket rows of the launches' join no longer fit DuckDB's 1 GB and the
-- join went out of core, 12.8 s of CPU against 3.7 s; at 20 M the coarser grid costs nothing, 3.1-3.2 s against
-- 3.4 s for nvtx-gpu's projection.)
SELECT
    attribution,                               -- 'thread' or 'process'
    key,                                       -- thread or process key (see _range_keys)
    greatest(0, ceil(log2(greatest(1, sum(end_ns - start_ns + 1) / count(*)))))::INTEGER AS shift,
                                               -- bucket of a time t: t >> shift
    dense_rank() OVER (ORDER BY attribution, key)::INTEGER AS grid_id -- (attribution, key) as one small integer:
                                               -- the range joins' hash tables hold it instead of both
FROM _range_keys
WHERE attribution IN ('thread', 'process')
GROUP BY attribution, key
