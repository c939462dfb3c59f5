-- name: _copy_calls
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_RUNTIME, mem_kind, strings
-- _copy_calls: every memory copy with the runtime call that issued it, as the copy rules print them; created as
-- the view _diag.copy_calls. The first eleven columns are nsys' copy-rule columns; the rest are for filtering.
SELECT
    m."end" - m.start AS duration_ns,              -- copy time on the GPU (ns)
    m.start AS start_ns,                           -- copy start on the GPU (ns)
    mem_kind(m.srcKind) AS src_memory,             -- source memory kind (Pageable, Pinned, Device, ...)
    mem_kind(m.dstKind) AS dst_memory,             -- destination memory kind
    m.bytes,                                       -- bytes copied
    (m.globalPid >> 24) & 16777215 AS pid,         -- process
    m.deviceId AS device,                          -- CUDA device id
    m.contextId AS context,                        -- CUDA context id
    nullif(m.greenContextId, 0) AS green_context,  -- green context id (NULL when none)
    m.streamId AS stream,                          -- CUDA stream id
    s.value AS api_name,                           -- the runtime call that issued the copy
    m."end" AS end_ns,                             -- copy end on the GPU (ns)
    m.copyKind AS copy_kind_id,                    -- CUPTI copy kind (1 = host to device)
    m.srcKind AS src_kind_id,                      -- CUPTI memory kind of the source (0 = pageable)
    m.dstKind AS dst_kind_id,                      -- CUPTI memory kind of the destination
    m.srcDeviceId AS src_device,                   -- source device
    m.dstDeviceId AS dst_device                    -- destination device
FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY AS m
JOIN compat.CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = m.correlationId
JOIN strings AS s ON s.id = r.nameId
