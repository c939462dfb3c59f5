-- _range_events: the boundaries of the ranges of each (mode, key): the sweep line of range attribution.
-- Needs: _range_keys. A range [start, end] enters at start and leaves at end + 1 (ends are inclusive, as in nsys'
-- containment test). Between two boundary times the set of open ranges does not change: that stretch is a
-- segment, numbered by the rank of its first boundary time within (mode, key). An ASOF join on p finds the
-- segment of any time (none before the first boundary).
WITH boundaries AS (
    SELECT k.mode, k.key, CASE d.delta WHEN 1 THEN k.start_ns ELSE k.end_ns + 1 END AS p, k.range_id, d.delta,
           k.start_ns, k.end_ns
    FROM _range_keys AS k
    CROSS JOIN (VALUES (1), (-1)) AS d(delta)
)
SELECT
    mode,                                      -- attribution mode
    key,                                       -- thread or process key (see _range_keys)
    p,                                         -- boundary time (ns)
    dense_rank() OVER (PARTITION BY mode, key ORDER BY p) AS seg, -- the segment starting at p, from 1
    range_id,                                  -- range entering or leaving
    delta,                                     -- +1 enters, -1 leaves
    start_ns,                                  -- the range's start (ns)
    end_ns                                     -- the range's end (ns)
FROM boundaries
