-- _range_parents: each range's parent per attribution mode: the tightest range of the same key that contains it
-- (the shortest; as nsys' nvtx_gpu_proj_trace defines it), NULL at the top. Of two ranges with the same start and
-- end the one with the lower id is the parent (nsys makes each the other's parent and then lists neither).
-- Needs: _range_keys, _range_spans. The candidates are the ranges open in the segment where the range starts.
WITH parents AS (
    SELECT
        c.mode, c.range_id,
        arg_min(s.range_id, (s.end_ns - s.start_ns, -s.start_ns, s.range_id)) AS parent_id
    FROM _range_spans AS c
    JOIN _range_spans AS s ON s.mode = c.mode AND s.key = c.key AND s.seg = c.seg
    WHERE c.seg = c.first_seg AND s.range_id <> c.range_id AND s.end_ns >= c.end_ns
      AND NOT (s.start_ns = c.start_ns AND s.end_ns = c.end_ns AND s.range_id > c.range_id)
    GROUP BY c.mode, c.range_id
)
SELECT
    k.mode,                                    -- 'thread', 'process' or 'gpu'
    k.range_id,                                -- the range
    p.parent_id                                -- its parent (NULL: a top range)
FROM _range_keys AS k
LEFT JOIN parents AS p ON p.mode = k.mode AND p.range_id = k.range_id
