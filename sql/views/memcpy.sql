-- name: memcpy
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_MEMCPY, mem_kind
-- memcpy: one row per memory copy executed by a GPU copy engine or kernel.
-- Kinds follow CUPTI (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND).
SELECT
    m.start AS start_ns,                       -- GPU start (ns)
    m."end" AS end_ns,                         -- GPU end (ns)
    m."end" - m.start AS duration_ns,          -- duration (ns)
    m.bytes AS bytes,                          -- bytes copied
    CASE m.copyKind WHEN 1 THEN 'HtoD' WHEN 2 THEN 'DtoH' WHEN 3 THEN 'HtoA' WHEN 4 THEN 'AtoH'
        WHEN 5 THEN 'AtoA' WHEN 6 THEN 'AtoD' WHEN 7 THEN 'DtoA' WHEN 8 THEN 'DtoD' WHEN 9 THEN 'HtoH'
        WHEN 10 THEN 'PtoP' WHEN 11 THEN 'Unified HtoD' WHEN 12 THEN 'Unified DtoH'
        WHEN 13 THEN 'Unified DtoD' ELSE 'Unknown' END AS kind, -- direction
    mem_kind(m.srcKind) AS src_memory,         -- source memory kind (Pageable, Pinned, Device, ...)
    mem_kind(m.dstKind) AS dst_memory,         -- destination memory kind
    m.deviceId AS device,                      -- CUDA device id
    m.contextId AS context,                    -- CUDA context id
    m.streamId AS stream,                      -- CUDA stream id
    (m.globalPid >> 24) & 16777215 AS pid,     -- process
    m.correlationId AS correlation_id,         -- links to cuda_api.correlation_id
    m.graphNodeId AS graph_node_id,            -- CUDA graph node id when part of a graph
    m.rowid AS op_id,                          -- row id in nsys' table (the op_id of NVTX attribution)
    m.copyKind AS copy_kind_id                 -- raw CUPTI copy kind
FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY AS m
