-- name: _kernel_launch_stats
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, exact_variance
-- _kernel_launch_stats: the duration statistics of every kernel name and launch configuration (grid and block),
-- for each way nsys names kernels: what kernel_summary_by_launch computes when no filter is given. The columnar
-- cache stores it (one grouping of every kernel, made once), so an unfiltered `kernels --by-launch-config` reads a
-- few hundred rows however large the profile; without the cache a query reads only the name kind it asks for.
SELECT
    name_kind,                                 -- 'demangled', 'short' or 'mangled' (kernels_in's name_kind)
    group_name_id,                             -- strings.id of the name (kernels_in's group_name_id)
    grid_x,                                    -- grid dimensions: x
    grid_y,                                    -- grid y
    grid_z,                                    -- grid z
    block_x,                                   -- block dimensions: x
    block_y,                                   -- block y
    block_z,                                   -- block z
    sum(duration_ns) AS total,                 -- summed duration (ns)
    count(*) AS num,                           -- executions
    median(duration_ns) AS med,                -- median duration (ns)
    min(duration_ns) AS min,                   -- shortest (ns)
    max(duration_ns) AS max,                   -- longest (ns)
    exact_variance(duration_ns) AS variance    -- sample variance (NULL for one execution)
FROM (
    SELECT 'demangled' AS name_kind, demangledName AS group_name_id, "end" - start AS duration_ns,
           gridX AS grid_x, gridY AS grid_y, gridZ AS grid_z, blockX AS block_x, blockY AS block_y, blockZ AS block_z
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL
    SELECT 'short', coalesce(shortName, demangledName), "end" - start, gridX, gridY, gridZ, blockX, blockY, blockZ
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL
    SELECT 'mangled', coalesce(mangledName, demangledName), "end" - start, gridX, gridY, gridZ, blockX, blockY, blockZ
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
)
GROUP BY name_kind, group_name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z
