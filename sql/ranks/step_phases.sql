-- name: step_phases
-- kind: query
-- params: none
-- needs: nvtx_events, steps
-- step_phases: the NVTX ranges directly inside each step range (on any thread of the step's process), with
-- their CPU time: where a step spends its time (`data`, `forward`, `backward`, `optimizer_step`).
-- Needs: nvtx_events, step_ranges (passed in as the table `steps`: step, start_ns, end_ns, pid).
-- No range join over all pairs: where a process' steps are disjoint (the usual case) each range is placed in the
-- one step that starts last at or before it (an ASOF join); only the steps of a process where steps overlap or
-- touch are compared with every range of it. A range is directly inside its step when no other range of the
-- step holds it: window functions over the step's ranges in start order.
WITH ranges AS (
    SELECT start_ns, end_ns, name, pid, tid
    FROM nvtx_events
    WHERE end_ns IS NOT NULL AND style <> 'Mark'
),
step_list AS (
    SELECT step, start_ns, end_ns, pid,
        coalesce(start_ns <= max(end_ns) OVER (PARTITION BY pid ORDER BY start_ns, end_ns
                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS meets
    FROM steps
),
shared AS (SELECT DISTINCT pid FROM step_list WHERE meets),  -- processes whose steps overlap or touch
inside AS (
    SELECT s.step, r.name, r.start_ns, r.end_ns, r.pid, r.tid
    FROM ranges AS r
    ASOF JOIN (SELECT * FROM step_list WHERE pid NOT IN (SELECT pid FROM shared)) AS s
      ON s.pid = r.pid AND r.start_ns >= s.start_ns
    WHERE r.end_ns <= s.end_ns AND (r.start_ns, r.end_ns) <> (s.start_ns, s.end_ns)
    UNION ALL
    SELECT s.step, r.name, r.start_ns, r.end_ns, r.pid, r.tid
    FROM (SELECT * FROM step_list WHERE pid IN (SELECT pid FROM shared)) AS s
    JOIN ranges AS r
      ON r.pid = s.pid AND r.start_ns >= s.start_ns AND r.end_ns <= s.end_ns
     AND (r.start_ns, r.end_ns) <> (s.start_ns, s.end_ns)
),
held AS (  -- the latest end among the step's ranges that start earlier; among those starting with it, the latest
           -- end, and whether another name has the same interval
    SELECT *,
        max(end_ns) OVER (PARTITION BY step ORDER BY start_ns
                          RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end_ns,
        max(end_ns) OVER (PARTITION BY step, start_ns) AS same_start_end_ns,
        min(name) OVER (PARTITION BY step, start_ns, end_ns) <> max(name) OVER (PARTITION BY step, start_ns, end_ns)
            AS renamed
    FROM inside
),
top AS (  -- held by no other range of the step (a range with the same interval and name is not another one)
    SELECT * FROM held
    WHERE coalesce(earlier_end_ns < end_ns, true) AND same_start_end_ns <= end_ns AND NOT renamed
)
SELECT
    step,                                      -- step index (step_ranges.step)
    name,                                      -- range name (e.g. data)
    sum(end_ns - start_ns) AS duration_ns,     -- CPU time of the range(s) of that name in the step (ns)
    count(*) AS instances                      -- how many such ranges the step has
FROM top
GROUP BY step, name
ORDER BY step, name
