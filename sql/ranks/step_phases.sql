-- step_phases: the NVTX ranges directly inside each step range (on any thread of the step's process), with
-- their CPU time: where a step spends its time (`data`, `forward`, `backward`, `optimizer_step`).
-- Needs: nvtx_events, step_ranges (passed in as the table `steps`: step, start_ns, end_ns, pid).
WITH ranges AS (
    SELECT start_ns, end_ns, name, pid, tid
    FROM nvtx_events
    WHERE end_ns IS NOT NULL AND style <> 'Mark'
),
inside AS (
    SELECT s.step, r.name, r.start_ns, r.end_ns, r.pid, r.tid
    FROM steps AS s JOIN ranges AS r
      ON r.pid = s.pid AND r.start_ns >= s.start_ns AND r.end_ns <= s.end_ns
     AND (r.start_ns, r.end_ns) <> (s.start_ns, s.end_ns)
),
top AS (
    SELECT o.* FROM inside AS o
    WHERE NOT EXISTS (SELECT 1 FROM inside AS i
                      WHERE i.step = o.step AND i.start_ns <= o.start_ns AND i.end_ns >= o.end_ns
                        AND (i.start_ns, i.end_ns, i.name) <> (o.start_ns, o.end_ns, o.name))
)
SELECT
    step,                                      -- step index (step_ranges.step)
    name,                                      -- range name (e.g. data)
    sum(end_ns - start_ns) AS duration_ns,     -- CPU time of the range(s) of that name in the step (ns)
    count(*) AS instances                      -- how many such ranges the step has
FROM top
GROUP BY step, name
ORDER BY step, name
