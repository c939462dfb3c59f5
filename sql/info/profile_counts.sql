-- name: profile_counts
-- kind: query
-- params: none
-- needs: devices, graph_executions, memcpy, memset, syncs, threads
-- profile_counts: how many rows each normalized event view has, but for kernels, cuda_api and nvtx_events: info
-- sums those from active_processes.sql, which counts them per process in the same scan of their tables.
-- Needs: memcpy, memset, graph_executions, syncs, threads, devices.
SELECT
    'memcpy' AS view,                          -- view name
    count(*) AS n_rows                         -- its number of rows
FROM memcpy
UNION ALL SELECT 'memset', count(*) FROM memset
UNION ALL SELECT 'graph_executions', count(*) FROM graph_executions
UNION ALL SELECT 'syncs', count(*) FROM syncs
UNION ALL SELECT 'threads', count(*) FROM threads
UNION ALL SELECT 'devices', count(*) FROM devices
ORDER BY view
