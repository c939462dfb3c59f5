-- step_ranges: the training steps of a process, from NVTX ranges named like a step (`step_3`, `step 3`,
-- `train_loop:step_3`, `iteration_3`, `iter3`); where such ranges nest, the innermost ones. The phases of each
-- step are the ranges directly inside it (`data`, `forward`, `backward`, `optimizer_step`).
-- Needs: nvtx_events.
WITH ranges AS (
    SELECT start_ns, end_ns, name, pid, tid
    FROM nvtx_events
    WHERE end_ns IS NOT NULL AND style <> 'Mark'
),
named AS (
    SELECT * FROM ranges
    WHERE regexp_matches(name, '(^|[^A-Za-z])(step|iteration|iter)[ _#-]?[0-9]+$', 'i')
),
innermost AS (
    SELECT o.* FROM named AS o
    WHERE NOT EXISTS (SELECT 1 FROM named AS i
                      WHERE i.pid = o.pid AND i.start_ns >= o.start_ns AND i.end_ns <= o.end_ns
                        AND (i.start_ns, i.end_ns) <> (o.start_ns, o.end_ns))
)
SELECT
    row_number() OVER (PARTITION BY pid ORDER BY start_ns) - 1 AS step, -- step index in time order, from 0
    name,                                      -- range name (e.g. step_3)
    start_ns,                                  -- CPU start of the step range (ns)
    end_ns,                                    -- CPU end (ns)
    pid                                        -- process
FROM innermost
ORDER BY pid, start_ns
