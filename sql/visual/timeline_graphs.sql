-- name: timeline_graphs
-- kind: query
-- params: $from_ns, $to_ns
-- needs: _visual_graphs, _visual_kernels, _visual_memcpy, _visual_memset
-- timeline_graphs: CUDA graph executions in a time window. Traced whole (`--cuda-graph-trace=graph`), each
-- execution is a row of _visual_graphs; traced per node (`node`, nsys' default), an execution is the kernels,
-- copies and memsets one graph launch ran on a stream (same launch correlation id, graph node set), spanned
-- from the first start to the last end.
-- Needs (temp views of the window's rows that visual/data.py creates): _visual_graphs, _visual_kernels,
-- _visual_memcpy, _visual_memset. Params: $from_ns, $to_ns: the window [from, to).
WITH nodes AS (
    SELECT deviceId, streamId, correlationId, globalPid, start, "end" FROM _visual_kernels
    WHERE graphNodeId IS NOT NULL
    UNION ALL
    SELECT deviceId, streamId, correlationId, globalPid, start, "end" FROM _visual_memcpy WHERE graphNodeId IS NOT NULL
    UNION ALL
    SELECT deviceId, streamId, correlationId, globalPid, start, "end" FROM _visual_memset WHERE graphNodeId IS NOT NULL
),
executions AS (
    SELECT coalesce(deviceId, 0) AS device, streamId AS stream, correlationId AS correlation_id, min(start) AS s,
           max("end") AS e, count(*) AS n
    FROM nodes GROUP BY ALL
    UNION ALL
    SELECT coalesce(deviceId, 0), streamId, correlationId, start, "end", 1 FROM _visual_graphs
)
SELECT
    device,                                    -- CUDA device id
    stream,                                    -- CUDA stream id
    correlation_id,                            -- the cudaGraphLaunch call's correlation id
    greatest(s, $from_ns) AS start_ns,         -- execution start (first node start), clipped to the window (ns)
    least(e, $to_ns) AS end_ns,                -- execution end (last node end), clipped to the window (ns)
    n AS nodes                                 -- operations it ran in the window (1 for a graph traced whole)
FROM executions
ORDER BY device, stream, start_ns
