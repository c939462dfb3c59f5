-- name: nvtx_range_instances
-- kind: query
-- params: $attribution, $exclusive
-- needs: _nvtx_ranges, kernels, nvtx_attributed_ops
-- nvtx_range_instances: one row per NVTX range instance (each `step_3`, each `forward`) with the GPU time of the
-- kernels it holds, and the mean and spread of that time over the instances of the same name and style.
-- Parameters: $attribution ('thread' | 'process' | 'gpu'), $exclusive.
-- Ranges that hold no kernel are listed with 0. Ordered by range name, then instance (start time).
WITH per_range AS (
    SELECT range_id, count(*) AS kernels, sum(duration_ns) AS kernel_time
    FROM nvtx_attributed_ops($attribution, $exclusive)
    WHERE kind = 'kernel' AND range_id IS NOT NULL
    GROUP BY range_id
),
instances AS (
    SELECT
        r.name, r.style, r.pid, r.tid, r.range_id, r.start_ns, r.duration_ns,
        coalesce(p.kernels, 0) AS kernels,
        coalesce(p.kernel_time, 0) AS kernel_time,
        row_number() OVER (PARTITION BY r.name, r.style ORDER BY r.start_ns, r.range_id) AS instance,
        avg(coalesce(p.kernel_time, 0)) OVER (PARTITION BY r.name, r.style) AS avg_time,
        stddev_samp(coalesce(p.kernel_time, 0)) OVER (PARTITION BY r.name, r.style) AS stddev_time
    FROM _nvtx_ranges AS r
    LEFT JOIN per_range AS p ON p.range_id = r.range_id
)
SELECT
    name AS range,                             -- range name ('domain:text')
    style,                                     -- PushPop or StartEnd
    pid,                                       -- process
    tid,                                       -- thread that started the range
    instance,                                  -- 1, 2, ... in start order among ranges of this name and style
    range_id,                                  -- NVTX_EVENTS row id
    start_ns,                                  -- range start (ns)
    duration_ns AS range_time_ns,              -- range duration (ns)
    kernels AS kernel_instances,               -- kernels it holds
    kernel_time AS kernel_time_ns,             -- their summed GPU time (ns)
    avg_time AS avg_kernel_time_ns,            -- mean kernel time over the instances of this name (ns)
    coalesce(stddev_time, 0) AS stddev_kernel_time_ns, -- sample standard deviation over the instances (ns)
    100.0 * (kernel_time - avg_time) / nullif(avg_time, 0) AS vs_avg_pct -- this instance against the mean (%)
FROM instances
ORDER BY range, style, instance
