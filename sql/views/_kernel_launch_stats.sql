-- name: _kernel_launch_stats
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, counted_median, counted_variance
-- _kernel_launch_stats: the duration statistics of every kernel name and launch configuration (grid and block),
-- for each way nsys names kernels: what kernel_summary_by_launch computes when no filter is given. The columnar
-- cache stores it (one grouping of every kernel, made once), so an unfiltered `kernels --by-launch-config` reads a
-- few hundred rows however large the profile.
-- As _kernel_name_stats: each duration of each name and configuration once, with its count, and the statistics
-- (the median too) from those rows.
WITH kernel_durations AS (  -- each (names, configuration, duration) once, with how many kernels ran that long
    SELECT
        demangledName AS demangled_id,
        coalesce(shortName, demangledName) AS short_id,
        coalesce(mangledName, demangledName) AS mangled_id,
        gridX AS grid_x, gridY AS grid_y, gridZ AS grid_z, blockX AS block_x, blockY AS block_y, blockZ AS block_z,
        "end" - start AS duration_ns,
        count(*) AS n
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    GROUP BY ALL
),
durations AS (  -- per name kind: each name and configuration's distinct durations and their counts
    SELECT name_kind, group_name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, duration_ns,
        sum(n)::BIGINT AS n
    FROM (
        SELECT 'demangled' AS name_kind, demangled_id AS group_name_id, * EXCLUDE (demangled_id, short_id, mangled_id)
        FROM kernel_durations
        UNION ALL
        SELECT 'short', short_id, * EXCLUDE (demangled_id, short_id, mangled_id) FROM kernel_durations
        UNION ALL
        SELECT 'mangled', mangled_id, * EXCLUDE (demangled_id, short_id, mangled_id) FROM kernel_durations
    )
    GROUP BY ALL
),
ranked AS (  -- kernels up to each duration, of the group's kernels
    SELECT *,
        sum(n) OVER (PARTITION BY name_kind, group_name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z
                     ORDER BY duration_ns) AS upto,
        sum(n) OVER (PARTITION BY name_kind, group_name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z)
            AS group_rows,
        sum(duration_ns::HUGEINT * n) OVER (PARTITION BY name_kind, group_name_id, grid_x, grid_y, grid_z, block_x,
                                             block_y, block_z)
            / sum(n) OVER (PARTITION BY name_kind, group_name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z)
            AS mean
    FROM durations
)
SELECT
    name_kind,                                 -- 'demangled', 'short' or 'mangled' (kernels_in's name_kind)
    group_name_id,                             -- strings.id of the name (kernels_in's group_name_id)
    grid_x,                                    -- grid dimensions: x
    grid_y,                                    -- grid y
    grid_z,                                    -- grid z
    block_x,                                   -- block dimensions: x
    block_y,                                   -- block y
    block_z,                                   -- block z
    sum(duration_ns::HUGEINT * n) AS total,    -- summed duration (ns)
    sum(n)::BIGINT AS num,                     -- executions
    counted_median(duration_ns, upto, group_rows) AS med, -- median duration (ns), interpolated as median() does
    min(duration_ns) AS min,                   -- shortest (ns)
    max(duration_ns) AS max,                   -- longest (ns)
    counted_variance(duration_ns, n, mean) AS variance -- sample variance (NULL for one execution)
FROM ranked
GROUP BY name_kind, group_name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z
