-- name: memset
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_MEMSET, mem_kind
-- memset: one row per GPU memset.
SELECT
    m.start AS start_ns,                       -- GPU start (ns)
    m."end" AS end_ns,                         -- GPU end (ns)
    m."end" - m.start AS duration_ns,          -- duration (ns)
    m.bytes AS bytes,                          -- bytes set
    m.value AS value,                          -- the value written
    mem_kind(m.memKind) AS memory,             -- memory kind
    m.deviceId AS device,                      -- CUDA device id
    m.contextId AS context,                    -- CUDA context id
    m.streamId AS stream,                      -- CUDA stream id
    (m.globalPid >> 24) & 16777215 AS pid,     -- process
    m.correlationId AS correlation_id,         -- links to cuda_api.correlation_id
    m.graphNodeId AS graph_node_id,            -- CUDA graph node id when part of a graph
    m.rowid AS op_id                           -- row id in nsys' table (the op_id of NVTX attribution)
FROM compat.CUPTI_ACTIVITY_KIND_MEMSET AS m
