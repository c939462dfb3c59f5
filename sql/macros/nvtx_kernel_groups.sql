-- name: nvtx_kernel_groups
-- kind: table_macro
-- params: want_attribution, innermost_only, kernel_name_kind, with_graphs
-- needs: _nvtx_ranges, exact_variance, graph_executions, nvtx_attributed_ops, strings
-- nvtx_kernel_groups(want_attribution, innermost_only, kernel_name_kind, with_graphs): table macro, the rows of
-- nvtx_kernel_summary (GPU time of kernels per NVTX range, thread and kernel name, = `nsys stats --report
-- nvtx_kern_sum` with want_attribution 'thread', inclusive), unordered. Kernels in no range form rows with an empty range,
-- as in nsys.  Unrounded.
--   want_attribution  'thread' | 'process' | 'gpu'
--   innermost_only    true: each kernel in its innermost range only (exclusive)
--   kernel_name_kind  'demangled' | 'short' | 'mangled', as kernels_in
--   with_graphs       true: whole CUDA graph executions too, as '[CUDA graph N]' (nsys: false)
-- The last two columns are not nsys': in process mode, the kernels of a row that other threads than the range's
-- launched (the report warns about them and leaves the columns out).
WITH labels AS (  -- one integer per output range label (its first range id): the big grouping stays on integers
    SELECT
        range_id, name, style, pid, tid,
        first_value(range_id) OVER label_order AS label_id,
        -- another range of the same label overlaps this one: a kernel may then count twice in the label, and
        -- only such rows need the costly distinct count
        coalesce(start_ns <= max(end_ns) OVER earlier, false)
            OR coalesce(lead(start_ns) OVER label_order <= end_ns, false) AS may_repeat
    FROM _nvtx_ranges
    WINDOW label_order AS (PARTITION BY name, style, pid, tid ORDER BY start_ns, range_id),
           earlier AS (label_order ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
rows AS (
    SELECT
        l.label_id,
        CASE WHEN a.range_id IS NULL THEN a.launch_global_tid END AS unranged_tid,
        a.range_id,
        CASE WHEN a.kind = 'graph' THEN -1 - a.op_id ELSE a.op_id END AS op_id, -- graph ids apart from kernel ids
        a.duration_ns,
        coalesce(l.may_repeat, false) AS may_repeat,
        a.launch_global_tid & 16777215 AS launch_tid,
        want_attribution = 'process' AND a.launch_global_tid & 16777215 <> l.tid AS foreign_launch,
        CASE WHEN a.kind = 'graph' THEN -1 - coalesce(g.graph_id, g.graph_exec_id)  -- below every string id
             WHEN kernel_name_kind = 'short' THEN coalesce(a.short_name_id, a.name_id)
             WHEN kernel_name_kind = 'mangled' THEN coalesce(a.mangled_name_id, a.name_id)
             ELSE a.name_id END AS name_id,
        g.name AS graph_name
    FROM nvtx_attributed_ops(want_attribution, innermost_only, with_graphs := with_graphs) AS a
    LEFT JOIN labels AS l ON l.range_id = a.range_id
    LEFT JOIN graph_executions AS g ON a.kind = 'graph' AND g.op_id = a.op_id
    WHERE a.kind = 'kernel' OR a.kind = 'graph'
),
summary AS (
    SELECT
        label_id, unranged_tid, name_id,
        count(DISTINCT range_id) AS range_instances,
        count(*) FILTER (NOT may_repeat) + count(DISTINCT op_id) FILTER (may_repeat) AS kernel_instances,
        sum(duration_ns) AS total,
        sum(duration_ns) / count(*) AS avg,
        min(duration_ns) AS min,
        max(duration_ns) AS max,
        exact_variance(duration_ns) AS variance,
        count(*) FILTER (foreign_launch) AS foreign_kernels,
        list(DISTINCT launch_tid) FILTER (foreign_launch) AS foreign_tids,
        any_value(graph_name) AS graph_name
    FROM rows
    GROUP BY label_id, unranged_tid, name_id
),
-- The median from each group's distinct durations and their counts, not median(): its per-group lists of every
-- duration sit outside DuckDB's memory limit (1.9 GB at 50 M kernels under a 1 GB limit), while these groupings
-- and the window spill. Kernel durations repeat, so there are far fewer of these rows than kernels.
durations AS (
    SELECT label_id, unranged_tid, name_id, duration_ns, count(*) AS n
    FROM rows
    GROUP BY label_id, unranged_tid, name_id, duration_ns
),
ranked AS (  -- rows up to each duration, of rows in its group
    SELECT *,
        sum(n) OVER (PARTITION BY label_id, unranged_tid, name_id ORDER BY duration_ns) AS upto,
        sum(n) OVER (PARTITION BY label_id, unranged_tid, name_id) AS group_rows
    FROM durations
),
middles AS (  -- the two middle durations (the same one when the count is odd)
    SELECT label_id, unranged_tid, name_id,
        min(duration_ns) FILTER (upto > (group_rows - 1) // 2) AS lower,
        min(duration_ns) FILTER (upto > group_rows // 2) AS upper
    FROM ranked
    GROUP BY label_id, unranged_tid, name_id
),
medians AS (  -- halfway between them, as median() interpolates (a sum of two could pass 2^63)
    SELECT label_id, unranged_tid, name_id, lower + (upper - lower) / 2 AS med
    FROM middles
)
SELECT
    l.name AS range,                           -- range name ('domain:text'); NULL for kernels in no range
    l.style,                                   -- PushPop or StartEnd
    coalesce(l.pid, (s.unranged_tid >> 24) & 16777215) AS pid, -- process
    coalesce(l.tid, s.unranged_tid & 16777215) AS tid, -- the range's thread (no range: the launching thread)
    s.range_instances,                         -- ranges of this name that hold these kernels
    s.kernel_instances,                        -- kernels
    s.total AS total_time_ns,                  -- summed GPU time (a kernel in two same-named ranges twice)
    s.avg AS avg_ns,                           -- mean kernel duration
    m.med AS med_ns,                           -- median kernel duration
    s.min AS min_ns,                           -- shortest kernel
    s.max AS max_ns,                           -- longest kernel
    coalesce(sqrt(s.variance), 0) AS stddev_ns, -- sample standard deviation (0 for one kernel)
    coalesce(n.value, s.graph_name) AS kernel_name, -- kernel name (demangled, short or mangled), '[CUDA graph N]'
    s.foreign_kernels,                         -- process mode: kernels launched by other threads than the range's
    s.foreign_tids                             -- process mode: those threads
FROM summary AS s
JOIN medians AS m
    ON m.label_id IS NOT DISTINCT FROM s.label_id AND m.unranged_tid IS NOT DISTINCT FROM s.unranged_tid
   AND m.name_id IS NOT DISTINCT FROM s.name_id
LEFT JOIN (SELECT DISTINCT label_id, name, style, pid, tid FROM labels) AS l ON l.label_id = s.label_id
LEFT JOIN strings AS n ON n.id = s.name_id
