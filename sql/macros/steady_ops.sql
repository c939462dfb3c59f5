-- steady_ops(step_pattern, warmup_pattern, after_ns): table macro, the GPU operations of the steady state
-- (nsys_analytics/nvtx/steady.py): those whose launching CUDA API call ran, on any thread of the process (the
-- `process` attribution), inside an NVTX range that step_pattern names (text, full name or a glob over either) and
-- that starts at or after after_ns, and not inside a range named warmup_pattern. step_pattern NULL: none.
-- Needs: _range_ops, _nvtx_ranges. The ranges of each kind are merged into disjoint islands per process first, so
-- that one ASOF join per kind places every call (no range join over the operations).
--   step_pattern     the step ranges ('step_*')
--   warmup_pattern   the warm-up range ('warmup'); NULL: none
--   after_ns         step instances starting before it are warm-up; NULL: none
WITH ranges AS (
    SELECT global_pid, start_ns, end_ns,
        (text = step_pattern OR name = step_pattern OR text GLOB step_pattern OR name GLOB step_pattern)
            AND (after_ns IS NULL OR start_ns >= after_ns) AS is_step,
        (text = warmup_pattern OR name = warmup_pattern) AS is_warm
    FROM _nvtx_ranges
    WHERE step_pattern IS NOT NULL
),
flagged AS (  -- a new island starts where a range begins after every earlier one of its kind has ended
    SELECT is_warm, global_pid, start_ns, end_ns,
        coalesce(start_ns > max(end_ns) OVER (PARTITION BY is_warm, global_pid ORDER BY start_ns, end_ns
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), true) AS starts
    FROM (SELECT false AS is_warm, * FROM ranges WHERE is_step UNION ALL SELECT true, * FROM ranges WHERE is_warm)
),
islands AS (
    SELECT is_warm, global_pid, min(start_ns) AS start_ns, max(end_ns) AS end_ns
    FROM (SELECT *, sum(starts::INTEGER) OVER (PARTITION BY is_warm, global_pid ORDER BY start_ns, end_ns) AS island
          FROM flagged)
    GROUP BY is_warm, global_pid, island
),
steps AS (SELECT global_pid, start_ns, end_ns FROM islands WHERE NOT is_warm),
warm AS (SELECT global_pid, start_ns, end_ns FROM islands WHERE is_warm),
launched AS (
    SELECT o.kind, o.op_id, o.global_pid, o.launch_start_ns, o.launch_end_ns
    FROM _range_ops AS o
    ASOF JOIN steps AS s ON s.global_pid = o.global_pid AND o.launch_start_ns >= s.start_ns
    WHERE o.launch_end_ns <= s.end_ns
)
SELECT
    l.kind,                                    -- 'kernel', 'memcpy', 'memset' or 'graph'
    l.op_id                                    -- row id in the operation's nsys table
FROM launched AS l
ASOF LEFT JOIN warm AS w ON w.global_pid = l.global_pid AND l.launch_start_ns >= w.start_ns
WHERE w.end_ns IS NULL OR l.launch_end_ns > w.end_ns
