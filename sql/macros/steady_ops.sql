-- name: steady_ops
-- kind: table_macro
-- params: step_pattern, warmup_pattern, after_ns
-- needs: _nvtx_ranges, _range_ops
-- steady_ops(step_pattern, warmup_pattern, after_ns): table macro, the GPU operations of the steady state
-- (nsys_analytics/nvtx/steady.py): those whose launching CUDA API call ran, on any thread of the process (the
-- `process` attribution), inside an NVTX range that step_pattern names (text, full name or a glob over either) and
-- that starts at or after after_ns, and not inside a range named warmup_pattern. step_pattern NULL: none.
-- The ranges of each kind are merged into disjoint islands per process first, so
-- that a call's start lies in at most one island of each kind: each island is listed under every bucket of
-- 2^shift ns it overlaps (about a quarter of the kind's mean island length, so at most about five rows an island),
-- and a hash join on (process, bucket of the call's start) places every call in one pass, without sorting the
-- operations (an ASOF join sorted all of them twice: 19 of 25 s CPU of a 10 M-kernel breakdown). A call that ends
-- before it starts (never seen) keeps the ASOF rule: the last island starting at or before its start.
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
grid AS (  -- the bucket width of each kind
    SELECT is_warm, greatest(0, ceil(log2(greatest(1, sum(end_ns - start_ns + 1) / (4 * count(*))))))::INTEGER AS shift
    FROM islands
    GROUP BY is_warm
),
buckets AS (  -- each island under every bucket it overlaps
    SELECT i.is_warm, i.global_pid, unnest(range(i.start_ns >> g.shift, (i.end_ns >> g.shift) + 1)) AS bucket,
        i.start_ns, i.end_ns
    FROM islands AS i
    JOIN grid AS g ON g.is_warm = i.is_warm
),
calls AS (  -- the launches of the operations, with the bucket of their start in each kind's grid
    SELECT o.kind, o.op_id, o.global_pid, o.launch_start_ns, o.launch_end_ns,
        o.launch_start_ns >> (SELECT shift FROM grid WHERE NOT is_warm) AS step_bucket,
        o.launch_start_ns >> (SELECT shift FROM grid WHERE is_warm) AS warm_bucket
    FROM _range_ops AS o
    WHERE o.launch_end_ns >= o.launch_start_ns
),
launched AS (  -- in a step island: the island holding the call's start ends at or after the call's end
    SELECT c.kind, c.op_id, c.global_pid, c.launch_start_ns, c.launch_end_ns, c.warm_bucket
    FROM calls AS c
    JOIN buckets AS s
      ON NOT s.is_warm AND s.global_pid = c.global_pid AND s.bucket = c.step_bucket
     AND s.start_ns <= c.launch_start_ns AND c.launch_start_ns <= s.end_ns
    WHERE c.launch_end_ns <= s.end_ns
),
kept AS (  -- and not in a warm-up island the same way
    SELECT l.kind, l.op_id
    FROM launched AS l
    LEFT JOIN buckets AS w
      ON w.is_warm AND w.global_pid = l.global_pid AND w.bucket = l.warm_bucket
     AND w.start_ns <= l.launch_start_ns AND l.launch_start_ns <= w.end_ns
    WHERE w.end_ns IS NULL OR l.launch_end_ns > w.end_ns
),
inverted AS (  -- calls that end before they start: the last island starting at or before the call's start
    SELECT o.kind, o.op_id, o.global_pid, o.launch_start_ns, o.launch_end_ns
    FROM _range_ops AS o
    ASOF JOIN steps AS s ON s.global_pid = o.global_pid AND o.launch_start_ns >= s.start_ns
    WHERE o.launch_end_ns < o.launch_start_ns AND o.launch_end_ns <= s.end_ns
)
SELECT
    kind,                                      -- 'kernel', 'memcpy', 'memset' or 'graph'
    op_id                                      -- row id in the operation's nsys table
FROM kept
UNION ALL
SELECT l.kind, l.op_id
FROM inverted AS l
ASOF LEFT JOIN warm AS w ON w.global_pid = l.global_pid AND l.launch_start_ns >= w.start_ns
WHERE w.end_ns IS NULL OR l.launch_end_ns > w.end_ns
