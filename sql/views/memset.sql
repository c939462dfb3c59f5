-- memset: one row per GPU memset.
-- Needs: compat.CUPTI_ACTIVITY_KIND_MEMSET.
SELECT
    m.start AS start_ns,                       -- GPU start (ns)
    m."end" AS end_ns,                         -- GPU end (ns)
    m."end" - m.start AS duration_ns,          -- duration (ns)
    m.bytes AS bytes,                          -- bytes set
    m.value AS value,                          -- the value written
    CASE m.memKind WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
        WHEN 4 THEN 'Managed' WHEN 5 THEN 'Device Static' WHEN 6 THEN 'Managed Static'
        ELSE 'Unknown' END AS memory,          -- memory kind
    m.deviceId AS device,                      -- CUDA device id
    m.contextId AS context,                    -- CUDA context id
    m.streamId AS stream,                      -- CUDA stream id
    (m.globalPid >> 24) & 16777215 AS pid,     -- process
    m.correlationId AS correlation_id,         -- links to cuda_api.correlation_id
    m.graphNodeId AS graph_node_id             -- CUDA graph node id when part of a graph
FROM compat.CUPTI_ACTIVITY_KIND_MEMSET AS m
