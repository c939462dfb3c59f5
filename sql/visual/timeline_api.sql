-- name: timeline_api
-- kind: query
-- params: $from_ns, $min_box_ns, $ns_per_px, $to_ns
-- needs: _visual_driver, _visual_runtime, strings
-- timeline_api: the CUDA runtime and driver calls of each CPU thread in a time window, as boxes (calls at least
-- $min_box_ns long) and one density row per thread, level and pixel column for the shorter ones.
-- Needs (temp views of the window's rows that visual/data.py creates): _visual_runtime, _visual_driver, strings.
-- Params: $from_ns, $to_ns, $ns_per_px, $min_box_ns as in timeline_gpu.sql.
-- Level 0 holds runtime calls, level 1 driver calls (a runtime call makes its driver calls inside itself).
WITH calls AS (
    SELECT globalTid, 0 AS level, start AS call_start, correlationId AS call_id, nameId, greatest(start, $from_ns) AS s, least("end", $to_ns) AS e
    FROM _visual_runtime
    WHERE start < $to_ns AND "end" > $from_ns
    UNION ALL
    SELECT globalTid, 1, start, correlationId, nameId, greatest(start, $from_ns), least("end", $to_ns)
    FROM _visual_driver
    WHERE start < $to_ns AND "end" > $from_ns
),
keyed AS (
    SELECT *, e - s >= $min_box_ns AS wide FROM calls
),
grouped AS (
    SELECT globalTid, level, wide, min(s) AS s, max(e) AS e, sum(e - s) AS busy,
           count(*) AS n, arg_max(nameId, e - s) AS name_id
    FROM keyed
    GROUP BY globalTid, level, wide, CASE WHEN wide THEN call_start ELSE (s - $from_ns) // $ns_per_px END,
             CASE WHEN wide THEN call_id END
)
SELECT
    (g.globalTid >> 24) & 16777215 AS pid,     -- process
    g.globalTid & 16777215 AS tid,             -- calling thread
    g.level,                                   -- 0 runtime, 1 driver
    CASE WHEN g.wide THEN 'box' ELSE 'band' END AS shape, -- box: one call; band: a pixel column of short ones
    CASE WHEN g.wide THEN g.s ELSE $from_ns + ((g.s - $from_ns) // $ns_per_px) * $ns_per_px END AS start_ns, -- (ns)
    CASE WHEN g.wide THEN g.e ELSE $from_ns + ((g.s - $from_ns) // $ns_per_px + 1) * $ns_per_px END AS end_ns, -- (ns)
    g.busy AS busy_ns,                         -- summed time of the calls inside the window (ns)
    g.n AS operations,                         -- calls it stands for
    s.value AS name                            -- the call (the longest one of a band)
FROM grouped AS g
LEFT JOIN strings AS s ON s.id = g.name_id
ORDER BY pid, tid, level, start_ns, shape
