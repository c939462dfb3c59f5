-- cuda_memcpy_async: asynchronous copies (cudaMemcpy*Async*) from or to pageable host memory, which run
-- synchronously; = `nsys analyze --rule cuda_memcpy_async`. Longest first.
-- Needs: compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_RUNTIME, strings.
-- Params: $from_ns, $to_ns: copies overlapping [from, to) (the API call is not filtered, as in nsys);
-- $rows: row limit (NULL: all).
SELECT
    m."end" - m.start AS duration_ns,              -- copy time on the GPU (ns)
    m.start AS start_ns,                           -- copy start on the GPU (ns)
    mem_kind(m.srcKind) AS src_memory,       -- source memory kind (Pageable, Pinned, Device, ...)
    mem_kind(m.dstKind) AS dst_memory,       -- destination memory kind
    m.bytes,                                       -- bytes copied
    (m.globalPid >> 24) & 16777215 AS pid,         -- process
    m.deviceId AS device,                          -- CUDA device id
    m.contextId AS context,                        -- CUDA context id
    nullif(m.greenContextId, 0) AS green_context,  -- green context id (NULL when none)
    m.streamId AS stream,                          -- CUDA stream id
    s.value AS api_name                            -- the runtime call that issued the copy
FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY AS m
JOIN compat.CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = m.correlationId
JOIN strings AS s ON s.id = r.nameId
WHERE (m.srcKind = 0 OR m.dstKind = 0)
  AND s.value ILIKE 'cudaMemcpy%Async%'
  AND ((m.start >= $from_ns AND m.start < $to_ns) OR (m."end" >= $from_ns AND m."end" < $to_ns)
       OR (m.start < $from_ns AND m."end" >= $to_ns))
ORDER BY duration_ns DESC, start_ns
LIMIT $rows
