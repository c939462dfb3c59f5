-- name: nvtx_events
-- kind: view
-- params: none
-- needs: compat.NVTX_EVENTS, strings
-- nvtx_events: NVTX ranges (push/pop and start/end) and marks, with domain and name resolved.
-- Event types: 34 mark, 59 push/pop range, 60 start/end range,
-- 75 domain creation (gives domain names; not listed here), 33 category names (not listed here).
-- end_ns is NULL for marks and for ranges left open at the end of the capture.
SELECT
    e.start AS start_ns,                       -- range start or mark time (ns)
    e."end" AS end_ns,                         -- range end (ns); NULL for marks and unterminated ranges
    e."end" - e.start AS duration_ns,          -- range duration (ns)
    coalesce(e.text, s.value) AS name,         -- range or mark text (from text, or a registered string)
    coalesce(d.name, '') AS domain,            -- NVTX domain name; '' for the default domain
    CASE e.eventType WHEN 59 THEN 'PushPop' WHEN 60 THEN 'StartEnd' ELSE 'Mark' END AS style, -- kind
    (e.globalTid >> 24) & 16777215 AS pid,     -- process
    e.globalTid & 16777215 AS tid,             -- thread that opened the range
    e.endGlobalTid & 16777215 AS end_tid,      -- thread that ended a start/end range (NULL if same)
    e.domainId AS domain_id,                   -- NVTX domain id (0 = default)
    e.category AS category_id,                 -- category id (0 = none)
    c.name AS category,                        -- category name when it was registered
    e.color AS color,                          -- ARGB color
    coalesce(e.int64Value, e.uint64Value, e.int32Value, e.uint32Value) AS payload_int, -- integer payload
    coalesce(e.doubleValue, e.floatValue) AS payload_float, -- floating-point payload
    e.rangeId AS range_id,                     -- nsys range id
    e.eventType AS event_type,                 -- raw nsys event type
    e.globalTid AS global_tid,                 -- nsys' global thread id
    e.jsonText AS payload_json                 -- the payload as JSON (e.g. NCCL's message size) where the export has it (nsys export --include-json true), else NULL
FROM compat.NVTX_EVENTS AS e
LEFT JOIN strings AS s ON s.id = e.textId
LEFT JOIN (
    SELECT DISTINCT ON (domainId, globalTid >> 24) domainId, globalTid >> 24 AS gpid, coalesce(text, '') AS name
    FROM compat.NVTX_EVENTS AS de LEFT JOIN strings AS ds ON ds.id = de.textId
    WHERE eventType = 75
) AS d ON d.domainId = e.domainId AND d.gpid = e.globalTid >> 24
LEFT JOIN (
    SELECT DISTINCT ON (domainId, category, globalTid >> 24) domainId, category, globalTid >> 24 AS gpid,
           coalesce(text, '') AS name
    FROM compat.NVTX_EVENTS WHERE eventType = 33
) AS c ON c.domainId = e.domainId AND c.category = e.category AND c.gpid = e.globalTid >> 24
WHERE e.eventType IN (34, 59, 60)
