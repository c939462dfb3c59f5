-- name: syncs
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
-- syncs: CUDA synchronization waits recorded by CUPTI (event, stream, context synchronize).
SELECT
    s.start AS start_ns,                       -- wait start (ns)
    s."end" AS end_ns,                         -- wait end (ns)
    s."end" - s.start AS duration_ns,          -- wait duration (ns)
    CASE s.syncType WHEN 1 THEN 'Event sync' WHEN 2 THEN 'Stream wait event' WHEN 3 THEN 'Stream sync'
        WHEN 4 THEN 'Context sync' ELSE 'Unknown' END AS kind, -- what was waited for
    s.deviceId AS device,                      -- CUDA device id
    s.contextId AS context,                    -- CUDA context id
    s.streamId AS stream,                      -- CUDA stream id
    (s.globalPid >> 24) & 16777215 AS pid,     -- process
    s.correlationId AS correlation_id,         -- links to cuda_api.correlation_id
    s.eventId AS event_id                      -- CUDA event id for event syncs
FROM compat.CUPTI_ACTIVITY_KIND_SYNCHRONIZATION AS s
