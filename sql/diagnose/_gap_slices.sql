-- name: _gap_slices
-- kind: query
-- params: $min_gap_ns
-- needs: _diag.gaps
-- _gap_slices: how many idle gaps gpu_starved.sql reads and when they end, to cut them into slices of time with
-- about as many gaps each (starved.py): the first and last end, and the sixty-fourths of the ends (approximate:
-- they only balance the slices).
-- Params: $min_gap_ns: shortest idle gap considered (ns), as in gpu_starved.sql.
SELECT
    count(*) AS gaps,                                       -- gaps of at least $min_gap_ns
    min(end_ns) AS first_end_ns,                            -- earliest end (ns)
    max(end_ns) AS last_end_ns,                             -- latest end (ns)
    approx_quantile(end_ns, [i / 64 FOR i IN range(1, 64)]::FLOAT[]) AS ends_ns -- 63 ends, 1/64 to 63/64 (ns)
FROM _diag.gaps
WHERE work <> 2 AND end_ns - start_ns >= $min_gap_ns
