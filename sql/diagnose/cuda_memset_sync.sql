-- name: cuda_memset_sync
-- kind: query
-- params: $from_ns, $rows, $to_ns
-- needs: compat.CUPTI_ACTIVITY_KIND_MEMSET, compat.CUPTI_ACTIVITY_KIND_RUNTIME, mem_kind, strings
-- cuda_memset_sync: synchronous memsets (cudaMemset* without async) of pinned host or managed memory;
-- = `nsys analyze --rule cuda_memset_sync`. Longest first.
-- Params: $from_ns, $to_ns: memsets overlapping [from, to); $rows: row limit (NULL: all).
SELECT
    m."end" - m.start AS duration_ns,              -- memset time on the GPU (ns)
    m.start AS start_ns,                           -- memset start on the GPU (ns)
    mem_kind(m.memKind) AS memory,           -- memory kind (Pinned or Managed)
    m.bytes,                                       -- bytes set
    (m.globalPid >> 24) & 16777215 AS pid,         -- process
    m.deviceId AS device,                          -- CUDA device id
    m.contextId AS context,                        -- CUDA context id
    nullif(m.greenContextId, 0) AS green_context,  -- green context id (NULL when none)
    m.streamId AS stream,                          -- CUDA stream id
    s.value AS api_name                            -- the runtime call that issued the memset
FROM compat.CUPTI_ACTIVITY_KIND_MEMSET AS m
JOIN compat.CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = m.correlationId
JOIN strings AS s ON s.id = r.nameId
WHERE m.memKind IN (1, 4)
  AND s.value ILIKE 'cudaMemset%' AND s.value NOT ILIKE '%async%'
  AND ((m.start >= $from_ns AND m.start < $to_ns) OR (m."end" >= $from_ns AND m."end" < $to_ns)
       OR (m.start < $from_ns AND m."end" >= $to_ns))
ORDER BY duration_ns DESC, start_ns
LIMIT $rows
