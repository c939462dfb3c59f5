-- name: _finding_hits
-- kind: query
-- params: none
-- needs: _diag.finding_windows, _nvtx_ranges
-- _finding_hits: the NVTX range instances each finding happens in: those of the finding's process that overlap one
-- of its time windows (a range listed once per finding however many of its windows it overlaps). Only the finding
-- windows (a handful) are joined to the ranges, no event-scale range join. Created as _diag.finding_hits;
-- ranges.py computes each one's nesting depth from it, finding_ranges.sql names them.
-- Needs: _diag.finding_windows (finding, pid, start_ns, end_ns; pid NULL: any process), _nvtx_ranges.
SELECT
    w.finding,                                 -- index of the finding in the report
    r.range_id,                                -- the range instance
    any_value(r.pid) AS pid,                   -- its process
    any_value(r.name) AS name,                 -- range name as nsys prints it ('domain:text', ':text')
    any_value(r.start_ns) AS start_ns,         -- range start (ns)
    any_value(r.end_ns) AS end_ns              -- range end (ns)
FROM _diag.finding_windows AS w
JOIN _nvtx_ranges AS r
  ON (w.pid IS NULL OR r.pid = w.pid) AND r.start_ns < w.end_ns AND r.end_ns > w.start_ns
GROUP BY w.finding, r.range_id  -- grouped by the ids alone: cheaper than a DISTINCT over every column
