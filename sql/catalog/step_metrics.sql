-- step_metrics: per instance of the step ranges (the step-like NVTX range family that `runs gate` and `diff`
-- name, e.g. train_loop:step_*), the GPU time of the work launched inside it: its kernels' summed duration and the
-- GPU busy time of its kernels, memory copies, memsets and graph executions (the length of the union of their
-- [start, end) intervals: time during which at least one of them runs on any GPU of the process). An operation
-- belongs to the step instance of its process whose [start, end] holds the start of the CUDA call that launched it
-- (process attribution, docs/nvtx.md); steps do not overlap within a process, so an ASOF join on the latest step
-- start finds it (no range join). A step that launched nothing counts 0.
-- Needs: _nvtx_ranges, _range_ops. Parameters: $names (list of the step ranges' full names).
WITH steps AS MATERIALIZED (
    SELECT range_id, global_pid, start_ns, end_ns
    FROM _nvtx_ranges
    WHERE list_contains($names, name)
),
placed AS (  -- each launched operation with the latest step of its process started at or before its launch
    SELECT s.range_id, o.kind, o.start_ns, o.end_ns, o.duration_ns
    FROM (SELECT * FROM _range_ops WHERE launch_start_ns IS NOT NULL) AS o
    ASOF JOIN steps AS s ON s.global_pid = o.global_pid AND s.start_ns <= o.launch_start_ns
    WHERE o.launch_start_ns <= s.end_ns
),
ordered AS (  -- the latest end among the step's operations that start before this one
    SELECT range_id, kind, start_ns, end_ns, duration_ns,
           max(end_ns) OVER (PARTITION BY range_id ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered_to
    FROM placed
),
per_step AS (
    SELECT range_id,
           sum(duration_ns) FILTER (WHERE kind = 'kernel') AS kernel_ns,
           sum(greatest(end_ns - greatest(start_ns, coalesce(covered_to, start_ns)), 0)) AS busy_ns
    FROM ordered
    GROUP BY range_id
)
SELECT
    s.range_id,                                -- the step instance (NVTX_EVENTS row id)
    s.start_ns,                                -- its start (ns)
    coalesce(p.kernel_ns, 0)::BIGINT AS kernel_ns, -- summed duration of the kernels it launched (ns)
    coalesce(p.busy_ns, 0)::BIGINT AS gpu_busy_ns -- GPU busy time of the work it launched (ns)
FROM steps AS s
LEFT JOIN per_step AS p USING (range_id)
ORDER BY s.start_ns, s.range_id
