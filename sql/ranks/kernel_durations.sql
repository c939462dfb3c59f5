-- name: kernel_durations
-- kind: query
-- params: $attribution, $by_launch, $device, $end_ns, $exclude_range_name, $graphs, $match, $name_kind, $pid, $range_name, $start_ns, $stream
-- needs: kernels_in
-- kernel_durations: how many kernels of each name (and launch configuration) ran for each duration, the
-- distribution that per-rank summaries are merged from exactly (counts, sums, min, max, mean, median and standard
-- deviation of the union).
-- Parameters: those of kernels_in ($name_kind, $device, $stream, $pid, $start_ns, $end_ns,
-- $match, $range_name, $exclude_range_name, $attribution), $by_launch (grid and block too, as
-- cuda_gpu_kern_gb_sum), $graphs (whole CUDA graph executions too, as '[CUDA graph N]').
SELECT
    group_name AS name,                        -- kernel name (demangled, short or mangled)
    CASE WHEN $by_launch THEN printf('%4d %4d %4d', grid_x, grid_y, grid_z) END AS grid_xyz, -- grid, as nsys prints it ($by_launch)
    CASE WHEN $by_launch THEN printf('%4d %4d %4d', block_x, block_y, block_z) END AS block_xyz, -- block ($by_launch)
    duration_ns,                               -- one duration that occurs (ns)
    count(*) AS instances                      -- how many kernels of that name ran that long
FROM kernels_in($name_kind, $device, $stream, $pid, $start_ns, $end_ns, $match, range_name := $range_name,
                exclude_range_name := $exclude_range_name, attribution := $attribution, with_graphs := $graphs)
WHERE duration_ns IS NOT NULL
GROUP BY ALL
ORDER BY name, grid_xyz, block_xyz, duration_ns
