-- _range_spans: each range once for every segment it covers (see _range_events): the open ranges of each
-- segment. Needs: _range_events. Σ rows = Σ over boundaries of the ranges open there (ranges x nesting depth).
SELECT
    mode,                                      -- attribution mode
    key,                                       -- thread or process key
    unnest(range(first_seg, after_seg)) AS seg, -- a segment the range covers
    range_id,                                  -- the range
    start_ns,                                  -- its start (ns)
    end_ns,                                    -- its end (ns)
    first_seg                                  -- the segment where it starts
FROM (
    SELECT
        mode, key, range_id, any_value(start_ns) AS start_ns, any_value(end_ns) AS end_ns,
        max(seg) FILTER (delta = 1) AS first_seg, max(seg) FILTER (delta = -1) AS after_seg
    FROM _range_events
    GROUP BY mode, key, range_id
)
