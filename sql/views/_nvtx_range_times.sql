-- name: _nvtx_range_times
-- kind: view
-- params: none
-- needs: compat.NVTX_EVENTS
-- _nvtx_range_times: every NVTX push/pop and start/end range with its times and threads, without its name: what
-- range attribution needs (names: _nvtx_ranges).
-- A range with no end (left open when the capture stopped; newer nsys closes them itself) ends at the latest
-- NVTX range timestamp, as nsys' reports close it (one aggregate joined in: a window over every row cost seconds).
WITH last AS (
    SELECT max(greatest(start, "end")) AS end_ns FROM compat.NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71)
)
SELECT
    rowid AS range_id,                         -- NVTX_EVENTS row id (nsys' RangeId in nvtx_gpu_proj_trace)
    start AS start_ns,                         -- range start (ns)
    coalesce("end", last.end_ns) AS end_ns, -- range end (ns), closed if open
    coalesce("end", last.end_ns) - start AS duration_ns, -- range duration (ns)
    CASE WHEN eventType IN (59, 70) THEN 'PushPop' ELSE 'StartEnd' END AS style, -- PushPop or StartEnd
    (globalTid >> 24) & 16777215 AS pid,       -- process
    globalTid & 16777215 AS tid,               -- thread that started the range
    endGlobalTid & 16777215 AS end_tid,        -- thread that ended a start/end range elsewhere (else NULL)
    "end" IS NULL AS closed_at_end,            -- true: had no end in the export, closed at the last timestamp
    globalTid AS global_tid,                   -- nsys' global thread id of the starting thread
    globalTid & -16777216 AS global_pid,       -- nsys' global process id
    textId AS text_id,                         -- strings.id of the text, when registered
    text AS own_text,                          -- the event's own text, when not registered
    domainId AS domain_id                      -- NVTX domain id (0: default domain)
FROM compat.NVTX_EVENTS CROSS JOIN last
WHERE eventType IN (59, 60, 70, 71)
