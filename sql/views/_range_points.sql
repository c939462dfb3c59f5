-- _range_points: the segments of each (mode, key) (see _range_events): where each starts, how many ranges are
-- open in it, and how many ranges have started up to it. An ASOF join on p finds the segment of any time (none
-- before the first boundary). Needs: _range_events.
SELECT
    mode,                                      -- attribution mode
    key,                                       -- thread or process key
    p,                                         -- segment start (ns)
    seg,                                       -- segment number within (mode, key), from 1
    sum(sum(delta)) OVER w AS open_ranges,     -- ranges open throughout the segment
    sum(count(*) FILTER (delta = 1)) OVER w AS started -- ranges started at or before p
FROM _range_events
GROUP BY mode, key, p, seg
WINDOW w AS (PARTITION BY mode, key ORDER BY seg)
