-- name: serve_lanes
-- kind: query
-- params: none
-- needs: _nvtx_ranges, _range_tree, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_MEMSET
-- serve_lanes: the rows of the `serve` timeline: one per GPU stream (kernels, copies, memsets) and one per NVTX
-- thread and nesting level, numbered in the order they are drawn (per process: its NVTX threads, then its streams).
-- serve/timeline_window.py stores it as the temp table _serve_lanes.
WITH gpu AS (
    SELECT (globalPid >> 24) & 16777215 AS pid, coalesce(deviceId, 0) AS device, streamId AS stream
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    UNION
    SELECT (globalPid >> 24) & 16777215, coalesce(deviceId, 0), streamId FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY
    UNION
    SELECT (globalPid >> 24) & 16777215, coalesce(deviceId, 0), streamId FROM compat.CUPTI_ACTIVITY_KIND_MEMSET
),
nvtx AS (
    SELECT DISTINCT r.pid, r.tid, coalesce(t.level, 0) AS level
    FROM _nvtx_ranges AS r
    LEFT JOIN _range_tree AS t ON t.range_id = r.range_id AND t.attribution = 'thread'
),
lanes AS (
    SELECT 'gpu' AS kind, pid, device, stream, NULL::BIGINT AS tid, NULL::BIGINT AS level FROM gpu
    UNION ALL
    SELECT 'nvtx', pid, NULL, NULL, tid, level FROM nvtx
)
SELECT
    (row_number() OVER (ORDER BY pid, kind DESC, device, stream, tid, level) - 1)::INTEGER AS lane, -- lane number
    kind,                                      -- 'nvtx' (ranges of one thread and level) or 'gpu' (one stream)
    pid,                                       -- process
    device,                                    -- CUDA device id (gpu lanes)
    stream,                                    -- CUDA stream id (gpu lanes)
    tid,                                       -- thread id (nvtx lanes)
    level,                                     -- NVTX nesting level, 0 at the top (nvtx lanes)
    CASE kind WHEN 'gpu' THEN 'GPU ' || device || ' stream ' || stream
        ELSE 'NVTX ' || tid || (CASE WHEN level > 0 THEN ' +' || level ELSE '' END) END AS label -- lane title
FROM lanes
ORDER BY lane
