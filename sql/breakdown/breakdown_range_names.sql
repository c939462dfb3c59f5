-- name: breakdown_range_names
-- kind: query
-- params: none
-- needs: _nvtx_ranges
-- breakdown_range_names: every NVTX range name `breakdown --by range` can show, with its first start and how long
-- it was open (the union of its instances in each process, summed over processes).  No parameters.
-- Named as breakdown shows them: the text in the default domain ('forward'), 'domain:text' in another. A range
-- left open at the end of the capture is closed there, as the attribution closes it. A few hundred rows: the
-- instances themselves (2.5 M at 50 M kernels) stay in DuckDB.
WITH spans AS (
    SELECT pid, coalesce(CASE WHEN domain IS NULL THEN text ELSE name END, name) AS range, start_ns, end_ns
    FROM _nvtx_ranges
),
reached AS (  -- how far the earlier instances of the name in the process reach
    SELECT *,
        max(end_ns) OVER (PARTITION BY pid, range ORDER BY start_ns, end_ns
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach_ns
    FROM spans
)
SELECT
    range,                                     -- range name
    min(start_ns) AS first_start_ns,           -- its first instance's start (ns)
    sum(greatest(end_ns - greatest(start_ns, coalesce(reach_ns, start_ns)), 0)) AS open_ns
                                               -- how long an instance was open (ns), overlaps once
FROM reached
GROUP BY range
ORDER BY range
