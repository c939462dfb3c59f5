-- name: nsys_match
-- kind: query
-- params: $by
-- needs: _nsys_kernels, ncu_kernels
-- nsys_match: each ncu result next to the nsys kernel of the same name and the same order of launch within that name,
-- with the timeline totals of that name. Needs: ncu_kernels, _nsys_kernels (start_ns, duration_ns, mangled_name,
-- short_name of an nsys profile's kernels view).
-- Parameters: $by: 'mangled' (mangled names, exact; needs a .ncu-rep) or 'function' (bare function names, from a CSV).
WITH ncu AS (
    SELECT id, CASE WHEN $by = 'mangled' THEN mangled_name ELSE function END AS match_name
    FROM ncu_kernels
), ncu_nth AS (
    SELECT id, match_name, row_number() OVER (PARTITION BY match_name ORDER BY id) AS nth
    FROM ncu
), nsys_k AS (
    SELECT start_ns, duration_ns, CASE WHEN $by = 'mangled' THEN mangled_name ELSE short_name END AS match_name
    FROM _nsys_kernels
), nsys_nth AS (
    SELECT *, row_number() OVER (PARTITION BY match_name ORDER BY start_ns, duration_ns) AS nth
    FROM nsys_k
), totals AS (
    SELECT match_name, sum(duration_ns) AS total_ns, count(*) AS instances
    FROM nsys_k
    GROUP BY match_name
)
SELECT
    n.id AS kernel_id,                         -- ncu_kernels.id
    n.nth AS launch_of_name,                   -- 1 for the first launch of this kernel name, 2 for the second, ...
    s.start_ns AS nsys_start_ns,               -- start of the matched nsys kernel (NULL: no match)
    s.duration_ns AS nsys_duration_ns,         -- its duration on the timeline, without profiler replay
    t.total_ns AS nsys_total_ns,               -- time of all nsys kernels of this name
    t.instances AS nsys_instances,             -- how many nsys kernels have this name
    100.0 * t.total_ns / (SELECT sum(duration_ns) FROM nsys_k) AS nsys_time_pct -- share of all GPU kernel time (%)
FROM ncu_nth AS n
LEFT JOIN nsys_nth AS s ON s.match_name = n.match_name AND s.nth = n.nth
LEFT JOIN totals AS t ON t.match_name = n.match_name
ORDER BY n.id
