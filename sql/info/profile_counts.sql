-- name: profile_counts
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_DRIVER, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_RUNTIME, devices, graph_executions, memcpy, memset, nvtx_events, syncs, threads
-- profile_counts: how many rows each normalized event view has.
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_RUNTIME, compat.CUPTI_ACTIVITY_KIND_DRIVER,
-- nvtx_events, memcpy, memset, graph_executions, syncs, threads, devices.
-- kernels and cuda_api are counted on the tables they are made of: their joins (a name by its unique string id,
-- the launching thread from a grouping by correlation id) keep one row per kernel or call, so the counts are the
-- views' own without computing the joins.
SELECT
    'kernels' AS view,                         -- view name
    count(*) AS n_rows                         -- its number of rows
FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
UNION ALL SELECT 'cuda_api', (SELECT count(*) FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME)
                             + (SELECT count(*) FROM compat.CUPTI_ACTIVITY_KIND_DRIVER)
UNION ALL SELECT 'nvtx_events', count(*) FROM nvtx_events
UNION ALL SELECT 'memcpy', count(*) FROM memcpy
UNION ALL SELECT 'memset', count(*) FROM memset
UNION ALL SELECT 'graph_executions', count(*) FROM graph_executions
UNION ALL SELECT 'syncs', count(*) FROM syncs
UNION ALL SELECT 'threads', count(*) FROM threads
UNION ALL SELECT 'devices', count(*) FROM devices
ORDER BY view
