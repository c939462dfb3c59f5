-- name: timeline_events_coarse
-- kind: query
-- params: $limit, $ns_per_px, $t0, $t1
-- needs: _serve_wide, strings
-- timeline_events_coarse: timeline_events for a window on the coarse grid (timeline_columns_coarse): an interval
-- that crosses a column edge there crosses a bucket edge, so it is among the few of serve_wide.
-- Needs: _serve_wide (serve_wide.sql), strings. Params: $t0, $t1 (ns); $ns_per_px (ns); $limit (rows).
WITH wide AS (
    SELECT lane, start_ns, end_ns, cat, item, kind
    FROM _serve_wide
    WHERE start_ns < $t1 AND end_ns > $t0
      AND (least(end_ns, $t1) - 1 - $t0) // $ns_per_px > (greatest(start_ns, $t0) - $t0) // $ns_per_px
    ORDER BY end_ns - start_ns DESC, start_ns, lane
    LIMIT $limit
)
SELECT
    w.lane,                                    -- _serve_lanes.lane
    w.start_ns,                                -- start (ns, not clipped)
    w.end_ns,                                  -- end (ns, not clipped)
    w.cat,                                     -- colour id
    w.item,                                    -- kernel: strings.id of its name; copy: copyKind; NVTX: range_id
    w.kind,                                    -- 0 kernel, 1 copy, 2 memset, 3 NVTX range
    s.value AS name                            -- the kernel's demangled name (NULL for the others)
FROM wide AS w
LEFT JOIN strings AS s ON w.kind = 0 AND s.id = w.item
ORDER BY w.lane, w.start_ns
