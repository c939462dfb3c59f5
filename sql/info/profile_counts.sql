-- profile_counts: how many rows each normalized event view has.
-- Needs: kernels, cuda_api, nvtx_events, memcpy, memset, syncs, threads, devices.
SELECT 'kernels' AS view, count(*) AS n_rows FROM kernels    -- view name, and its number of rows
UNION ALL SELECT 'cuda_api', count(*) FROM cuda_api
UNION ALL SELECT 'nvtx_events', count(*) FROM nvtx_events
UNION ALL SELECT 'memcpy', count(*) FROM memcpy
UNION ALL SELECT 'memset', count(*) FROM memset
UNION ALL SELECT 'graph_executions', count(*) FROM graph_executions
UNION ALL SELECT 'syncs', count(*) FROM syncs
UNION ALL SELECT 'threads', count(*) FROM threads
UNION ALL SELECT 'devices', count(*) FROM devices
ORDER BY view
