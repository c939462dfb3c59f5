-- name: nvtx_gpu_projection_summary
-- kind: query
-- params: $attribution, $exclusive, $graphs
-- needs: exact_variance, nvtx_projection
-- nvtx_gpu_projection_summary: NVTX ranges projected onto the GPU, per range name and style,
-- = `nsys stats --report nvtx_gpu_proj_sum` with $attribution 'thread' and $exclusive false.
-- Needs: nvtx_projection (with the defaults, thread and not exclusive and no graphs, the report reads the same
-- rows from _nvtx_range_projection, which the columnar cache stores, in place of the call: nvtx/report.py).
-- Parameters: $graphs (whole CUDA graph executions too; nsys: false), $attribution, $exclusive (as
-- nvtx_gpu_projection). Unrounded. Ordered as nsys: total projected time descending (then name).
WITH summary AS (
    SELECT
        name,
        style,
        sum(projected_duration_ns) AS total,
        sum(orig_duration_ns) AS range_total,
        count(*) AS num,
        sum(projected_duration_ns) / count(*) AS avg,
        median(projected_duration_ns) AS med,
        min(projected_duration_ns) AS min,
        max(projected_duration_ns) AS max,
        exact_variance(projected_duration_ns) AS variance,
        sum(gpu_ops) AS ops,
        avg(level) AS avg_level,
        avg(num_child) AS avg_children
    FROM nvtx_projection($attribution, $exclusive, with_graphs := $graphs)
    GROUP BY name, style
)
SELECT
    name AS range,                             -- range name ('domain:text')
    style,                                     -- PushPop or StartEnd
    total AS total_proj_time_ns,               -- summed projected duration
    range_total AS total_range_time_ns,        -- summed duration of the ranges themselves
    num AS range_instances,                    -- ranges of this name holding GPU operations
    avg AS proj_avg_ns,                        -- mean projected duration
    med AS proj_med_ns,                        -- median projected duration
    min AS proj_min_ns,                        -- shortest projected duration
    max AS proj_max_ns,                        -- longest projected duration
    coalesce(sqrt(variance), 0) AS proj_stddev_ns, -- sample standard deviation of the projected durations
    ops AS total_gpu_ops,                      -- GPU operations held by all instances
    ops / num AS avg_gpu_ops,                  -- per instance
    avg_level AS avg_range_lvl,                -- mean nesting level
    avg_children AS avg_num_child              -- mean number of children holding GPU operations
FROM summary
ORDER BY total DESC, name, style
