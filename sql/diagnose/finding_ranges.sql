-- name: finding_ranges
-- kind: query
-- params: $max_ranges
-- needs: _diag.finding_hits, _diag.hit_depths
-- finding_ranges: the NVTX ranges each finding happens in, one row per finding and range name, outermost first:
-- the names of its range instances (_diag.finding_hits) by their smallest nesting depth, then first start.
-- The depth of an instance is counted among the instances of the same finding and process (an enclosing range
-- always overlaps the window too): ranges.py computes it as a +1/-1 sweep over their starts and ends would.
-- Needs: _diag.finding_hits (_finding_hits.sql), _diag.hit_depths (finding, range_id, depth).
-- Params: $max_ranges: range names kept per finding.
WITH
    names AS (
        SELECT h.finding, h.name, min(d.depth) AS depth, min(h.start_ns) AS first_start_ns
        FROM _diag.finding_hits AS h JOIN _diag.hit_depths AS d ON d.finding = h.finding AND d.range_id = h.range_id
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
