-- name: _sync_calls
-- kind: query
-- params: $from_ns, $syncs, $to_ns
-- needs: _diag.spans, compat.CUPTI_ACTIVITY_KIND_RUNTIME, strings, syncs
-- _sync_calls: the synchronization calls cuda_api_sync lists (cudaDeviceSynchronize, cudaStreamSynchronize
-- overlapping the window), once per device of their process that has GPU work in the window, with the call's
-- start and end clipped to that device's GPU span: the interval whose GPU idle time sync_idle.sql charges them,
-- up to the first operation after the return. Created as the table _diag.sync_calls before the pass, which finds
-- what follows each call's return (_next_queries.sql).
-- Params: $from_ns, $to_ns: calls overlapping [from, to); $syncs: false makes no rows (cuda_api_sync not run).
WITH
    sync_names AS (
        SELECT id, value FROM strings
        WHERE value ILIKE 'cudaDeviceSynchronize%' OR value ILIKE 'cudaStreamSynchronize%'
    )
SELECT
    sp.pid,                                         -- process
    sp.device,                                      -- CUDA device id
    r.start AS call_start_ns,                       -- the call's start (ns)
    r."end" AS call_end_ns,                         -- the call's end (ns)
    least(greatest(r.start, sp.start_ns), sp.end_ns) AS from_ns, -- its start within the span (ns)
    least(greatest(r."end", sp.start_ns), sp.end_ns) AS until_ns -- its end within the span (ns)
FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME AS r
JOIN sync_names AS s ON s.id = r.nameId
JOIN _diag.spans AS sp ON sp.pid = (r.globalTid >> 24) & 16777215
WHERE $syncs AND ((r.start >= $from_ns AND r.start < $to_ns) OR (r."end" >= $from_ns AND r."end" < $to_ns)
      OR (r.start < $from_ns AND r."end" >= $to_ns))
