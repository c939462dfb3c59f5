-- _range_points: the segments of each (mode, key): where each starts, how many ranges are open in it, and how
-- many ranges have started up to it. A range [start, end] enters at start and leaves at end + 1 (ends are
-- inclusive, as in nsys' containment test); between two boundaries the set of open ranges does not change.
-- An ASOF join on p finds the segment of any time (none before the first boundary).
-- Needs: _range_events.
SELECT
    mode,                                      -- attribution mode
    key,                                       -- thread or process key
    p,                                         -- segment start (ns)
    row_number() OVER w AS seg,                -- segment number within (mode, key), from 1
    sum(sum(delta)) OVER w AS open_ranges,     -- ranges open throughout the segment
    sum(count(*) FILTER (delta = 1)) OVER w AS started -- ranges started at or before p
FROM _range_events
GROUP BY mode, key, p
WINDOW w AS (PARTITION BY mode, key ORDER BY p)
