-- timeline_graphs: CUDA graph executions in a time window: the kernels, copies and memsets one graph launch ran
-- on a stream (same launch correlation id, graph node set) spanned from the first start to the last end.
-- Needs (temp views of the window's rows that visual/data.py creates): _visual_kernels, _visual_memcpy, _visual_memset.
-- Params: $from_ns, $to_ns: the window [from, to).
WITH nodes AS (
    SELECT deviceId, streamId, correlationId, globalPid, start, "end" FROM _visual_kernels
    WHERE graphNodeId IS NOT NULL AND start < $to_ns AND "end" > $from_ns
    UNION ALL
    SELECT deviceId, streamId, correlationId, globalPid, start, "end" FROM _visual_memcpy
    WHERE graphNodeId IS NOT NULL AND start < $to_ns AND "end" > $from_ns
    UNION ALL
    SELECT deviceId, streamId, correlationId, globalPid, start, "end" FROM _visual_memset
    WHERE graphNodeId IS NOT NULL AND start < $to_ns AND "end" > $from_ns
)
SELECT
    coalesce(deviceId, 0) AS device,           -- CUDA device id
    streamId AS stream,                        -- CUDA stream id
    correlationId AS correlation_id,           -- the cudaGraphLaunch call's correlation id
    greatest(min(start), $from_ns) AS start_ns, -- first node start, clipped to the window (ns)
    least(max("end"), $to_ns) AS end_ns,       -- last node end, clipped to the window (ns)
    count(*) AS nodes                          -- operations it ran in the window
FROM nodes
GROUP BY ALL
ORDER BY device, stream, start_ns
