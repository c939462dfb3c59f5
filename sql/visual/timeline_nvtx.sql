-- name: timeline_nvtx
-- kind: query
-- params: $from_ns, $min_box_ns, $ns_per_px, $to_ns
-- needs: _visual_nvtx, strings
-- timeline_nvtx: the NVTX ranges of each thread that overlap a time window, with their nesting level, as boxes
-- (ranges at least $min_box_ns long inside the window) and density rows for the shorter ones.
-- Needs (a temp view of the window's rows that visual/data.py creates): _visual_nvtx; strings.
-- Params: $from_ns, $to_ns, $ns_per_px, $min_box_ns as in timeline_gpu.sql.
-- The level of a range is the number of ranges of its thread open when it starts (ends before starts at equal
-- times), counted among the ranges that overlap the window: every range open when a push/pop range starts
-- encloses it, so it overlaps the window too, and push/pop ranges get their exact depth. Overlapping start/end
-- ranges are stacked the same way. A range never ended runs to the end of the window.
WITH ranges AS (
    SELECT rowid AS range_id, (globalTid >> 24) & 16777215 AS pid, globalTid & 16777215 AS tid, start AS start_ns,
           coalesce("end", $to_ns) AS end_ns, coalesce(s.value, r.text) AS label
    FROM _visual_nvtx AS r
    LEFT JOIN strings AS s ON s.id = r.textId
),
edges AS (
    SELECT range_id, pid, tid, start_ns AS t, 1 AS delta FROM ranges
    UNION ALL
    SELECT range_id, pid, tid, end_ns, -1 FROM ranges
),
levels AS (
    SELECT range_id,
           sum(delta) OVER (PARTITION BY pid, tid ORDER BY t, delta, range_id
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS open_before
    FROM edges
    QUALIFY delta = 1
),
clipped AS (
    SELECT r.pid, r.tid, coalesce(l.open_before, 0) AS level, r.range_id, r.label,
           greatest(r.start_ns, $from_ns) AS s, least(r.end_ns, $to_ns) AS e,
           least(r.end_ns, $to_ns) - greatest(r.start_ns, $from_ns) >= $min_box_ns AS wide
    FROM ranges AS r JOIN levels AS l USING (range_id)
),
grouped AS (
    SELECT pid, tid, level, wide, min(s) AS s, max(e) AS e, sum(e - s) AS busy,
           count(*) AS n, arg_max(label, e - s) AS label
    FROM clipped
    GROUP BY pid, tid, level, wide, CASE WHEN wide THEN range_id ELSE (s - $from_ns) // $ns_per_px END
)
SELECT
    pid,                                       -- process
    tid,                                       -- thread that started the range
    level,                                     -- nesting level, 0 outermost
    CASE WHEN wide THEN 'box' ELSE 'band' END AS shape, -- box: one range; band: a pixel column of short ones
    CASE WHEN wide THEN s ELSE $from_ns + ((s - $from_ns) // $ns_per_px) * $ns_per_px END AS start_ns, -- (ns)
    CASE WHEN wide THEN e ELSE $from_ns + ((s - $from_ns) // $ns_per_px + 1) * $ns_per_px END AS end_ns, -- (ns)
    busy AS busy_ns,                           -- summed time of the ranges inside the window (ns)
    n AS ranges,                               -- ranges it stands for
    label                                      -- range text (the longest one of a band)
FROM grouped
ORDER BY pid, tid, level, start_ns, shape
