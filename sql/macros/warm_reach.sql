-- name: warm_reach
-- kind: table_macro
-- params: warmup
-- needs: _nvtx_ranges
-- warm_reach(warmup): table macro, the instances of the warm-up range `warmup` (its text or full name; NULL: none)
-- of each process, each with the latest end of it and of every instance starting no later (reach_ns). A range lies
-- inside some warm-up instance of its process (one starting at or before it and ending at or after it) exactly
-- when the last instance starting at or before it reaches its end: an ASOF join finds that one,
--     ASOF LEFT JOIN warm_reach($warmup) AS w ON w.pid = r.pid AND r.start_ns >= w.start_ns
--     ... coalesce(w.reach_ns >= r.end_ns, false) AS in_warmup
-- where testing every warm-up instance of the process grew with their product: 75 K step ranges and 25 K warm-ups
-- of a scaled 50 M-kernel export took range_instances.sql 2.1 s (0.08 s at 10 M).
SELECT
    pid,                                       -- process
    start_ns,                                  -- warm-up instance start (ns)
    max(end_ns) OVER (PARTITION BY pid ORDER BY start_ns RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
        AS reach_ns                            -- the latest end of the instances starting at or before it (ns)
FROM _nvtx_ranges
WHERE text = warmup OR name = warmup
