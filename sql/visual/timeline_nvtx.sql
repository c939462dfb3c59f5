-- timeline_nvtx: the NVTX ranges of each thread that overlap a time window, with their nesting level, as boxes
-- (ranges at least $min_box_ns long inside the window) and density rows for the shorter ones.
-- Needs: _nvtx_ranges. Params: $from_ns, $to_ns, $ns_per_px, $min_box_ns as in timeline_gpu.sql.
-- The level of a range is the number of ranges of its thread open when it starts (ends before starts at equal
-- times): push/pop ranges nest exactly; overlapping start/end ranges are stacked the same way.
WITH edges AS (
    SELECT range_id, pid, tid, start_ns AS t, 1 AS delta FROM _nvtx_ranges
    UNION ALL
    SELECT range_id, pid, tid, end_ns, -1 FROM _nvtx_ranges
),
levels AS (
    SELECT range_id,
           sum(delta) OVER (PARTITION BY pid, tid ORDER BY t, delta, range_id
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS open_before
    FROM edges
    QUALIFY delta = 1
),
ranges AS (
    SELECT r.pid, r.tid, coalesce(l.open_before, 0) AS level, r.range_id, r.text, r.name,
           greatest(r.start_ns, $from_ns) AS s, least(r.end_ns, $to_ns) AS e,
           least(r.end_ns, $to_ns) - greatest(r.start_ns, $from_ns) >= $min_box_ns AS wide
    FROM _nvtx_ranges AS r JOIN levels AS l USING (range_id)
    WHERE r.start_ns < $to_ns AND r.end_ns > $from_ns
),
grouped AS (
    SELECT pid, tid, level, wide, min(s) AS s, max(e) AS e, sum(e - s) AS busy,
           count(*) AS n, arg_max(coalesce(text, name), e - s) AS label
    FROM ranges
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
