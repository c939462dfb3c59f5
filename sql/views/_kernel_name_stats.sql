-- name: _kernel_name_stats
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, counted_median, counted_variance
-- _kernel_name_stats: the duration statistics of every kernel name, for each way nsys names kernels: what
-- kernel_summary computes when no filter is given. The columnar cache stores it (one grouping of every kernel, made
-- once), so an unfiltered `kernels` reads a few hundred rows.
-- It groups each kernel duration of each name once, with its count, and takes the statistics from those rows:
-- kernel durations repeat, so there are far fewer of them than kernels, and a median found from counts keeps no
-- list of every duration per name (median()'s lists sit outside DuckDB's memory limit). 10 M kernels: 0.13 s
-- instead of 1.1 s with median(), the same rows.
WITH kernel_durations AS (  -- each (names, duration) once, with how many kernels ran that long
    SELECT
        demangledName AS demangled_id,
        coalesce(shortName, demangledName) AS short_id,
        coalesce(mangledName, demangledName) AS mangled_id,
        "end" - start AS duration_ns,
        count(*) AS n
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    GROUP BY ALL
),
durations AS (  -- per name kind: each name's distinct durations and their counts
    SELECT name_kind, group_name_id, duration_ns, sum(n)::BIGINT AS n
    FROM (
        SELECT 'demangled' AS name_kind, demangled_id AS group_name_id, duration_ns, n FROM kernel_durations
        UNION ALL
        SELECT 'short', short_id, duration_ns, n FROM kernel_durations
        UNION ALL
        SELECT 'mangled', mangled_id, duration_ns, n FROM kernel_durations
    )
    GROUP BY ALL
),
ranked AS (  -- kernels up to each duration, of the name's kernels
    SELECT *,
        sum(n) OVER (PARTITION BY name_kind, group_name_id ORDER BY duration_ns) AS upto,
        sum(n) OVER (PARTITION BY name_kind, group_name_id) AS name_rows,
        sum(duration_ns::HUGEINT * n) OVER (PARTITION BY name_kind, group_name_id)
            / sum(n) OVER (PARTITION BY name_kind, group_name_id) AS mean
    FROM durations
)
SELECT
    name_kind,                                 -- 'demangled', 'short' or 'mangled' (kernels_in's name_kind)
    group_name_id,                             -- strings.id of the name (kernels_in's group_name_id)
    sum(duration_ns::HUGEINT * n) AS total,    -- summed duration (ns)
    sum(n)::BIGINT AS num,                     -- executions
    counted_median(duration_ns, upto, name_rows) AS med, -- median duration (ns), interpolated as median() does
    min(duration_ns) AS min,                   -- shortest (ns)
    max(duration_ns) AS max,                   -- longest (ns)
    counted_variance(duration_ns, n, mean) AS variance -- sample variance (NULL for one execution)
FROM ranked
GROUP BY name_kind, group_name_id
