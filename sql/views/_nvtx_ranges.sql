-- name: _nvtx_ranges
-- kind: view
-- params: none
-- needs: _nvtx_range_times, compat.NVTX_EVENTS, strings
-- _nvtx_ranges: every NVTX push/pop and start/end range as nsys' NVTX reports read it (marks left out), named.
-- Names as nsys 2024+ prints them: 'domain:text', ':text'
-- in the default domain; the text comes from the registered string (textId) or else from the event's own text.
-- A domain created on several threads of a process is named by its first creation (nsys would list such a range
-- once per creation).
WITH domains AS (
    SELECT d.domainId AS domain_id, (d.globalTid >> 24) & 16777215 AS pid,
           arg_min(coalesce(s.value, d.text), d.start) AS name
    FROM compat.NVTX_EVENTS AS d
    LEFT JOIN strings AS s ON s.id = d.textId
    WHERE d.eventType = 75
    GROUP BY ALL
)
SELECT
    r.range_id,                                -- NVTX_EVENTS row id (nsys' RangeId in nvtx_gpu_proj_trace)
    r.start_ns,                                -- range start (ns)
    r.end_ns,                                  -- range end (ns); for an open range the last NVTX timestamp
    r.duration_ns,                             -- range duration (ns)
    coalesce(d.name, '') || ':' || coalesce(s.value, r.own_text, '') AS name, -- 'domain:text' as nsys prints it
    coalesce(s.value, r.own_text) AS text,     -- the range's own text
    d.name AS domain,                          -- NVTX domain name; NULL for the default domain
    r.style,                                   -- PushPop or StartEnd
    r.pid,                                     -- process
    r.tid,                                     -- thread that started the range
    r.end_tid,                                 -- thread that ended a start/end range elsewhere (else NULL)
    r.closed_at_end,                           -- true: had no end in the export, closed at the last timestamp
    r.global_tid,                              -- nsys' global thread id of the starting thread
    r.global_pid                               -- nsys' global process id
FROM _nvtx_range_times AS r
LEFT JOIN domains AS d ON d.domain_id = r.domain_id AND d.pid = r.pid
LEFT JOIN strings AS s ON s.id = r.text_id
