-- step_gpu_time: per step window, how long the process's GPU work was busy, computing, communicating, and
-- communicating while computing. Unions of intervals (operations merged across streams), clipped to the step.
-- Needs: kernels, memcpy, memset, and the table `steps` (step, start_ns, end_ns, pid) passed in.
--   busy      any kernel, copy or memset        compute   kernels other than NCCL's
--   comm      NCCL kernels                       overlap   comm ∩ compute = comm + compute - |comm ∪ compute|
WITH ops AS (
    SELECT start_ns, end_ns, name LIKE 'nccl%' AS is_comm, true AS is_kernel FROM kernels
    UNION ALL SELECT start_ns, end_ns, false, false FROM memcpy
    UNION ALL SELECT start_ns, end_ns, false, false FROM memset
),
classes AS (
    SELECT 'busy' AS class, start_ns, end_ns FROM ops
    UNION ALL SELECT 'compute', start_ns, end_ns FROM ops WHERE is_kernel AND NOT is_comm
    UNION ALL SELECT 'comm', start_ns, end_ns FROM ops WHERE is_comm
    UNION ALL SELECT 'kernels', start_ns, end_ns FROM ops WHERE is_kernel
),
flagged AS (
    SELECT class, start_ns, end_ns,
           CASE WHEN start_ns > max(end_ns) OVER w THEN 1 ELSE 0 END AS new_island
    FROM classes
    WHERE end_ns > start_ns
    WINDOW w AS (PARTITION BY class ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
islands AS (
    SELECT class, min(start_ns) AS start_ns, max(end_ns) AS end_ns
    FROM (SELECT *, sum(new_island) OVER (PARTITION BY class ORDER BY start_ns ROWS UNBOUNDED PRECEDING) AS island
          FROM flagged)
    GROUP BY class, island
),
clipped AS (
    SELECT s.step, i.class, least(i.end_ns, s.end_ns) - greatest(i.start_ns, s.start_ns) AS ns
    FROM steps AS s JOIN islands AS i ON i.end_ns > s.start_ns AND i.start_ns < s.end_ns
),
per_step AS (
    SELECT step,
           coalesce(sum(ns) FILTER (WHERE class = 'busy'), 0) AS busy_ns,
           coalesce(sum(ns) FILTER (WHERE class = 'compute'), 0) AS compute_ns,
           coalesce(sum(ns) FILTER (WHERE class = 'comm'), 0) AS comm_ns,
           coalesce(sum(ns) FILTER (WHERE class = 'kernels'), 0) AS kernels_ns
    FROM clipped GROUP BY step
)
SELECT
    s.step,                                    -- step index
    coalesce(p.busy_ns, 0)::BIGINT AS gpu_busy_ns,  -- GPU busy with anything (ns)
    coalesce(p.compute_ns, 0)::BIGINT AS compute_ns, -- busy with non-NCCL kernels (ns)
    coalesce(p.comm_ns, 0)::BIGINT AS comm_ns,  -- busy with NCCL kernels (ns)
    coalesce(p.comm_ns + p.compute_ns - p.kernels_ns, 0)::BIGINT AS overlap_ns -- NCCL kernels running beside compute (ns)
FROM steps AS s LEFT JOIN per_step AS p ON p.step = s.step
ORDER BY s.step
