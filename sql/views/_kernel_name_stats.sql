-- name: _kernel_name_stats
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, exact_variance
-- _kernel_name_stats: the duration statistics of every kernel name, for each way nsys names kernels: what
-- kernel_summary computes when no filter is given. The columnar cache stores it (one grouping of every kernel, made
-- once), so an unfiltered `kernels` reads a few hundred rows; without the cache a query reads only the name kind it
-- asks for (the other branches are pruned).
SELECT
    name_kind,                                 -- 'demangled', 'short' or 'mangled' (kernels_in's name_kind)
    group_name_id,                             -- strings.id of the name (kernels_in's group_name_id)
    sum(duration_ns) AS total,                 -- summed duration (ns)
    count(*) AS num,                           -- executions
    median(duration_ns) AS med,                -- median duration (ns)
    min(duration_ns) AS min,                   -- shortest (ns)
    max(duration_ns) AS max,                   -- longest (ns)
    exact_variance(duration_ns) AS variance    -- sample variance (NULL for one execution)
FROM (
    SELECT 'demangled' AS name_kind, demangledName AS group_name_id, "end" - start AS duration_ns
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL
    SELECT 'short', coalesce(shortName, demangledName), "end" - start FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL
    SELECT 'mangled', coalesce(mangledName, demangledName), "end" - start FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
)
GROUP BY name_kind, group_name_id
