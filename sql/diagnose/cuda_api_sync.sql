-- name: cuda_api_sync
-- kind: query
-- params: $from_ns, $rows, $to_ns
-- needs: compat.CUPTI_ACTIVITY_KIND_RUNTIME, strings
-- cuda_api_sync: cudaDeviceSynchronize / cudaStreamSynchronize calls, which block the calling thread until
-- the GPU catches up; = `nsys analyze --rule cuda_api_sync`. Longest first.
-- Params: $from_ns, $to_ns: calls overlapping [from, to); $rows: row limit (NULL: all).
WITH
    sync_names AS (
        SELECT id, value FROM strings
        WHERE value ILIKE 'cudaDeviceSynchronize%' OR value ILIKE 'cudaStreamSynchronize%'
    )
SELECT
    r."end" - r.start AS duration_ns,          -- time the thread was blocked (ns)
    r.start AS start_ns,                       -- call start (ns)
    (r.globalTid >> 24) & 16777215 AS pid,     -- process
    r.globalTid & 16777215 AS tid,             -- thread
    s.value AS api_name                        -- the synchronization call
FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME AS r
JOIN sync_names AS s ON s.id = r.nameId
WHERE (r.start >= $from_ns AND r.start < $to_ns) OR (r."end" >= $from_ns AND r."end" < $to_ns)
      OR (r.start < $from_ns AND r."end" >= $to_ns)
ORDER BY duration_ns DESC, start_ns
LIMIT $rows
