-- _range_events: the boundaries of the ranges of each (mode, key): the sweep line of range attribution.
-- Needs: _range_keys. A range [start, end] enters at start and leaves at end + 1 (ends are inclusive, as in nsys'
-- containment test).
SELECT
    k.mode,                                    -- attribution mode
    k.key,                                     -- thread or process key (see _range_keys)
    CASE d.delta WHEN 1 THEN k.start_ns ELSE k.end_ns + 1 END AS p, -- boundary time (ns)
    k.range_id,                                -- range entering or leaving
    d.delta,                                   -- +1 enters, -1 leaves
    k.start_ns,                                -- the range's start (ns)
    k.end_ns                                   -- the range's end (ns)
FROM _range_keys AS k
CROSS JOIN (VALUES (1), (-1)) AS d(delta)
