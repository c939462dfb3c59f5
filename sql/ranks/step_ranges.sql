-- name: step_ranges
-- kind: query
-- params: none
-- needs: nvtx_events
-- step_ranges: the training steps of a process, from NVTX ranges named like a step (`step_3`, `step 3`,
-- `train_loop:step_3`, `iteration_3`, `iter3`); where such ranges nest, the innermost ones. The phases of each
-- step are the ranges directly inside it (`data`, `forward`, `backward`, `optimizer_step`).
-- A range is innermost when it holds no other step-named range of its process with another
-- interval: found with window functions over the ranges in start order, not by comparing every pair.
WITH ranges AS (
    SELECT start_ns, end_ns, name, pid, tid
    FROM nvtx_events
    WHERE end_ns IS NOT NULL AND style <> 'Mark'
),
named AS (
    SELECT * FROM ranges
    WHERE regexp_matches(name, '(^|[^A-Za-z])(step|iteration|iter)[ _#-]?[0-9]+$', 'i')
),
holds AS (  -- the earliest end among the ranges that start later, and among those that start with it
    SELECT *,
        min(end_ns) OVER (PARTITION BY pid ORDER BY start_ns
                          RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later_end_ns,
        min(end_ns) OVER (PARTITION BY pid, start_ns) AS same_start_end_ns
    FROM named
),
innermost AS (  -- holds none: no later-starting range ends within it, none starting with it ends earlier
    SELECT start_ns, end_ns, name, pid, tid FROM holds
    WHERE coalesce(later_end_ns > end_ns, true) AND same_start_end_ns >= end_ns
)
SELECT
    row_number() OVER (PARTITION BY pid ORDER BY start_ns) - 1 AS step, -- step index in time order, from 0
    name,                                      -- range name (e.g. step_3)
    start_ns,                                  -- CPU start of the step range (ns)
    end_ns,                                    -- CPU end (ns)
    pid                                        -- process
FROM innermost
ORDER BY pid, start_ns
