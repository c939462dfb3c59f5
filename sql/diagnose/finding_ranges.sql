-- finding_ranges: the NVTX ranges each finding happens in: the range instances of the finding's process that
-- overlap one of its time windows, one row per finding and range name, outermost first. Nesting depth comes
-- from a +1/-1 sweep over the overlapping instances of the finding and process (an enclosing range always
-- overlaps the window too), so no event-scale range join is needed: only the finding windows (a handful) are
-- joined to the ranges.
-- Needs: _diag.finding_windows (finding, pid, start_ns, end_ns; pid NULL: any process), _nvtx_ranges.
-- Params: $max_ranges: range names kept per finding.
WITH
    hits AS (
        SELECT DISTINCT w.finding, r.range_id, r.pid, r.name, r.start_ns, r.end_ns
        FROM _diag.finding_windows AS w
        JOIN _nvtx_ranges AS r
          ON (w.pid IS NULL OR r.pid = w.pid) AND r.start_ns < w.end_ns AND r.end_ns > w.start_ns
    ),
    edges AS (
        SELECT finding, pid, range_id, start_ns AS t, 1 AS step, end_ns FROM hits
        UNION ALL
        SELECT finding, pid, range_id, end_ns AS t, -1 AS step, end_ns FROM hits
    ),
    depths AS (
        SELECT finding, range_id,
               sum(step) OVER (PARTITION BY finding, pid ORDER BY t, step, end_ns DESC, range_id
                               ROWS UNBOUNDED PRECEDING) - 1 AS depth
        FROM edges
        QUALIFY step = 1
    ),
    names AS (
        SELECT h.finding, h.name, min(d.depth) AS depth, min(h.start_ns) AS first_start_ns
        FROM hits AS h JOIN depths AS d ON d.finding = h.finding AND d.range_id = h.range_id
        GROUP BY h.finding, h.name
    )
SELECT
    finding,                                   -- index of the finding in the report
    name,                                      -- range name as nsys prints it ('domain:text', ':text')
    depth,                                     -- nesting depth among the overlapping ranges (0 = outermost)
    first_start_ns                             -- first overlapping instance's start (ns)
FROM names
QUALIFY row_number() OVER (PARTITION BY finding ORDER BY depth, first_start_ns, name) <= $max_ranges
ORDER BY finding, depth, first_start_ns, name
