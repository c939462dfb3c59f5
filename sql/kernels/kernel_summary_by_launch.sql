-- name: kernel_summary_by_launch
-- kind: query
-- params: $attribution, $device, $end_ns, $exclude_range_name, $graphs, $limit, $match, $name_kind, $pid, $range_name, $start_ns, $stream
-- needs: _kernel_launch_stats, exact_variance, kernels_in, strings
-- kernel_summary_by_launch: time per kernel name and launch configuration,
-- = `nsys stats --report cuda_gpu_kern_gb_sum` (2022.4: `gpukernsum`).
-- Parameters as kernel_summary.
WITH summary AS (
    -- no filter: the statistics of every kernel by name and launch (_kernel_launch_stats, which the cache stores)
    SELECT
        st.group_name_id,
        s.value AS name,
        printf('%4d %4d %4d', st.grid_x, st.grid_y, st.grid_z) AS grid,
        printf('%4d %4d %4d', st.block_x, st.block_y, st.block_z) AS block,
        st.total,
        st.num,
        st.total / st.num AS avg,
        st.med,
        st.min,
        st.max,
        st.variance
    FROM _kernel_launch_stats AS st
    LEFT JOIN strings AS s ON s.id = st.group_name_id
    WHERE st.name_kind = $name_kind
      AND $device IS NULL AND $stream IS NULL AND $pid IS NULL AND $start_ns IS NULL AND $end_ns IS NULL
      AND $match IS NULL AND $range_name IS NULL AND $exclude_range_name IS NULL AND NOT $graphs
    UNION ALL
    -- a filter: the kernels that pass it
    SELECT
        group_name_id,
        any_value(group_name) AS name,
        printf('%4d %4d %4d', grid_x, grid_y, grid_z) AS grid,
        printf('%4d %4d %4d', block_x, block_y, block_z) AS block,
        sum(duration_ns) AS total,
        count(*) AS num,
        sum(duration_ns) / count(*) AS avg,
        median(duration_ns) AS med,
        min(duration_ns) AS min,
        max(duration_ns) AS max,
        exact_variance(duration_ns) AS variance
    FROM kernels_in($name_kind, $device, $stream, $pid, $start_ns, $end_ns, $match, range_name := $range_name,
                    exclude_range_name := $exclude_range_name, attribution := $attribution, with_graphs := $graphs)
    WHERE NOT ($device IS NULL AND $stream IS NULL AND $pid IS NULL AND $start_ns IS NULL AND $end_ns IS NULL
               AND $match IS NULL AND $range_name IS NULL AND $exclude_range_name IS NULL AND NOT $graphs)
    GROUP BY group_name_id, grid, block
)
SELECT
    total::DOUBLE * 100.0::DOUBLE / (sum(total) OVER ())::DOUBLE AS time_pct, -- share of the listed kernels' total time (%)
    total AS total_time_ns,                    -- summed GPU time of all instances
    num AS instances,                          -- number of executions
    avg AS avg_ns,                             -- mean duration
    med AS med_ns,                             -- median duration
    min AS min_ns,                             -- shortest execution
    max AS max_ns,                             -- longest execution
    coalesce(sqrt(variance), 0) AS stddev_ns, -- sample standard deviation (0 for one instance)
    grid AS grid_xyz,                          -- grid dimensions, as nsys prints them
    block AS block_xyz,                        -- block dimensions, as nsys prints them
    name                                       -- kernel name
FROM summary
ORDER BY total DESC, group_name_id, grid, block
LIMIT coalesce($limit, 9223372036854775807)
