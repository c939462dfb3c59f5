-- name: serve_events
-- kind: query
-- params: $memcpy_cat, $memset_cat, $other_cat
-- needs: _nvtx_ranges, _range_tree, _serve_categories, _serve_lanes, _serve_nvtx_names, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_MEMSET
-- serve_events: every interval the `serve` timeline draws, on its lane, in start order (so that DuckDB skips the
-- row groups outside a window). serve/timeline_window.py stores it as the temp table _serve_events, once per
-- profile; the window queries (timeline_columns, timeline_events) read only it.
-- Needs (temp tables serve/timeline_window.py makes first): _serve_lanes, _serve_categories (kernel name id ->
-- category id), _serve_nvtx_names.
-- Params: $memcpy_cat, $memset_cat: the colour ids of copies and memsets; $other_cat: a kernel no rule matched.
WITH ops AS (
    SELECT (k.globalPid >> 24) & 16777215 AS pid, coalesce(k.deviceId, 0) AS device, k.streamId AS stream,
           k.start AS s, k."end" AS e, coalesce(c.cat, $other_cat) AS cat, k.demangledName AS item, 0 AS kind
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    LEFT JOIN _serve_categories AS c ON c.name_id = k.demangledName
    UNION ALL
    SELECT (globalPid >> 24) & 16777215, coalesce(deviceId, 0), streamId, start, "end", $memcpy_cat, copyKind, 1
    FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY
    UNION ALL
    SELECT (globalPid >> 24) & 16777215, coalesce(deviceId, 0), streamId, start, "end", $memset_cat, NULL, 2
    FROM compat.CUPTI_ACTIVITY_KIND_MEMSET
),
placed AS (
    SELECT l.lane, o.s, o.e, o.cat, o.item, o.kind
    FROM ops AS o
    JOIN _serve_lanes AS l ON l.kind = 'gpu' AND l.pid = o.pid AND l.device = o.device AND l.stream = o.stream
    UNION ALL
    SELECT l.lane, r.start_ns, r.end_ns, n.cat, r.range_id, 3
    FROM _nvtx_ranges AS r
    LEFT JOIN _range_tree AS t ON t.range_id = r.range_id AND t.attribution = 'thread'
    JOIN _serve_lanes AS l ON l.kind = 'nvtx' AND l.pid = r.pid AND l.tid = r.tid AND l.level = coalesce(t.level, 0)
    JOIN _serve_nvtx_names AS n ON n.name = r.name
)
SELECT
    lane::INTEGER AS lane,                     -- _serve_lanes.lane
    s AS start_ns,                             -- start (ns, profile clock)
    e AS end_ns,                               -- end (ns)
    cat::INTEGER AS cat,                       -- colour id: kernel category, copy, memset or NVTX name
    item::BIGINT AS item,                      -- kernel: strings.id of its name; copy: copyKind; NVTX: range_id
    kind::UTINYINT AS kind                     -- 0 kernel, 1 copy, 2 memset, 3 NVTX range
FROM placed
ORDER BY start_ns, lane, end_ns
