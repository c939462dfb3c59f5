-- name: early_ops
-- kind: query
-- params: none
-- needs: _visual_graphs, _visual_kernels, _visual_memcpy, _visual_memset
-- early_ops: the GPU operations of the window that start before an earlier operation on their stream has ended
-- (Hopper's programmatic dependent launch lets a kernel start early). A trace puts them on the stream's second
-- track: slices of one track must nest for Perfetto to draw them. Usually none or a handful of rows; the sort
-- runs over these few narrow columns only, not over the trace events.
-- Needs (temp views visual/data.py creates): _visual_kernels, _visual_memcpy, _visual_memset, _visual_graphs.
SELECT
    kind,                                      -- 'kernel', 'memcpy', 'memset' or 'graph'
    op_id                                      -- rowid in its nsys table
FROM (
    SELECT kind, op_id,
           max("end") OVER (PARTITION BY deviceId, streamId ORDER BY start, "end" DESC, kind, op_id
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) > start AS early
    FROM (
        SELECT 'kernel' AS kind, rowid AS op_id, deviceId, streamId, start, "end" FROM _visual_kernels
        UNION ALL SELECT 'memcpy', rowid, deviceId, streamId, start, "end" FROM _visual_memcpy
        UNION ALL SELECT 'memset', rowid, deviceId, streamId, start, "end" FROM _visual_memset
        UNION ALL SELECT 'graph', rowid, deviceId, streamId, start, "end" FROM _visual_graphs
    )
)
WHERE early
ORDER BY kind, op_id
