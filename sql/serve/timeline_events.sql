-- name: timeline_events
-- kind: query
-- params: $events, $limit, $ns_per_px, $t0, $t1
-- needs: _serve_events, _serve_wide, strings
-- timeline_events: the intervals of the window [$t0, $t1) that cross a pixel column edge (wider than a pixel),
-- drawn one by one by the `serve` timeline: the $limit longest, with their kernel names.
-- Params: $events (_serve_events, or on the coarse grid _serve_wide: the intervals that cross a bucket edge, all
-- a window of whole buckets can show one by one); $t0, $t1 (ns); $ns_per_px (ns); $limit (rows).
WITH wide AS (
    SELECT lane, start_ns, end_ns, cat, item, kind
    FROM $events
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
