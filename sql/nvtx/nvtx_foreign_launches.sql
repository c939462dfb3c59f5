-- name: nvtx_foreign_launches
-- kind: query
-- params: $exclusive
-- needs: _nvtx_ranges, nvtx_attributed_ops
-- nvtx_foreign_launches: in process attribution, the ranges that hold GPU operations launched by threads other
-- than the range's own: these may belong to work the range does not own (a data loader, another stream's host
-- thread).  Parameter: $exclusive. Heaviest first.
SELECT
    r.name AS range,                           -- range name ('domain:text')
    r.tid,                                     -- the range's thread
    string_agg(DISTINCT a.launch_global_tid & 16777215, ', ' ORDER BY a.launch_global_tid & 16777215)
        AS launch_tids,                        -- the other threads that launched into it
    count(*) AS operations                     -- GPU operations launched by those threads
FROM nvtx_attributed_ops('process', $exclusive) AS a
JOIN _nvtx_ranges AS r ON r.range_id = a.range_id
WHERE a.launch_global_tid <> r.global_tid
GROUP BY r.name, r.tid
ORDER BY operations DESC, range, r.tid
