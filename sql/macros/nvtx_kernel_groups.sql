-- name: nvtx_kernel_groups
-- kind: table_macro
-- params: want_attribution, innermost_only, kernel_name_kind, with_graphs
-- needs: _nvtx_ranges, counted_median, counted_variance, graph_executions, nvtx_attributed_ops, shown_name_id, strings
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
        a.duration_ns,
        -- the kernel, where it may count twice in its label (graph ids apart from kernel ids). gpu: a kernel
        -- overlapping its range's edge may overlap another range of the label too, one that does not overlap this
        -- one (consecutive steps); a kernel within its range cannot
        CASE WHEN coalesce(l.may_repeat, false) OR want_attribution = 'gpu'
                AND coalesce(a.start_ns < a.range_start_ns OR a.end_ns > a.range_end_ns, false)
             THEN CASE WHEN a.kind = 'graph' THEN -1 - a.op_id ELSE a.op_id END END AS repeat_op,
        CASE WHEN want_attribution = 'process' AND a.launch_global_tid & 16777215 <> l.tid
             THEN a.launch_global_tid & 16777215 END AS foreign_tid, -- process mode: another thread launched it
        CASE WHEN a.kind = 'graph' THEN -1 - coalesce(g.graph_id, g.graph_exec_id)  -- below every string id
             ELSE shown_name_id(kernel_name_kind, a.name_id, a.short_name_id, a.mangled_name_id) END AS name_id
    FROM nvtx_attributed_ops(want_attribution, innermost_only, with_graphs := with_graphs) AS a
    LEFT JOIN labels AS l ON l.range_id = a.range_id
    LEFT JOIN graph_executions AS g ON a.kind = 'graph' AND g.op_id = a.op_id
    WHERE a.kind = 'kernel' OR a.kind = 'graph'
),
-- One pass over the rows fills four groupings at once (GROUPING SETS), each row of a label, thread and kernel name
-- counted in every one: by range (how many ranges hold such kernels), by duration (the distinct durations and how
-- many kernels ran that long: the sums, extremes, median and variance), by kernel where the label's ranges overlap
-- (a kernel counted once in its label) and by foreign launching thread. Neither a materialized copy of the rows
-- nor a count(DISTINCT ...) per group, and no median() list of every duration (those lists sit outside DuckDB's
-- memory limit). Kernel durations repeat, so the duration rows are far fewer than kernels.
grouped AS (
    SELECT
        label_id, unranged_tid, name_id, range_id, duration_ns, repeat_op, foreign_tid,
        GROUPING(range_id, duration_ns, repeat_op, foreign_tid) AS set_id,  -- 7, 11, 13, 14: which grouping
        count(*) AS n
    FROM rows
    GROUP BY GROUPING SETS ((label_id, unranged_tid, name_id, range_id),
                            (label_id, unranged_tid, name_id, duration_ns),
                            (label_id, unranged_tid, name_id, repeat_op),
                            (label_id, unranged_tid, name_id, foreign_tid))
),
collapsed AS (  -- the other groupings' rows down to one per group: what the summary needs of them
    SELECT
        label_id, unranged_tid, name_id, set_id, duration_ns,
        sum(n) AS n,
        count(*) FILTER (range_id IS NOT NULL) AS ranges,
        count(*) FILTER (repeat_op IS NOT NULL) AS repeat_ops,
        sum(n) FILTER (set_id = 13 AND repeat_op IS NULL) AS once,
        sum(n) FILTER (foreign_tid IS NOT NULL) AS foreign_kernels,
        list(foreign_tid) FILTER (foreign_tid IS NOT NULL) AS foreign_tids
    FROM grouped
    GROUP BY label_id, unranged_tid, name_id, set_id, duration_ns
),
ranked AS (  -- on the duration rows: kernels up to each duration, of the group's kernels, and their mean
    SELECT *,
        CASE WHEN set_id = 11 THEN n END AS duration_rows,  -- the other groupings' rows have no duration
        sum(n) OVER durations AS upto,
        sum(n) OVER whole AS group_rows,
        sum(duration_ns::HUGEINT * n) OVER whole / sum(n) OVER whole AS mean
    FROM collapsed
    WINDOW durations AS (PARTITION BY label_id, unranged_tid, name_id, set_id ORDER BY duration_ns),
           whole AS (PARTITION BY label_id, unranged_tid, name_id, set_id)
),
summary AS (
    SELECT
        label_id, unranged_tid, name_id,
        sum(ranges)::BIGINT AS range_instances,
        (coalesce(sum(once), 0) + sum(repeat_ops))::BIGINT AS kernel_instances,
        sum(duration_ns::HUGEINT * n) AS total,
        sum(duration_rows)::BIGINT AS num,
        counted_median(duration_ns, upto, group_rows) AS med,
        min(duration_ns) AS min,
        max(duration_ns) AS max,
        counted_variance(duration_ns, duration_rows, mean) AS variance,
        coalesce(sum(foreign_kernels), 0)::BIGINT AS foreign_kernels,
        list_sort(flatten(list(foreign_tids) FILTER (foreign_tids IS NOT NULL))) AS foreign_tids
    FROM ranked
    GROUP BY label_id, unranged_tid, name_id
)
SELECT
    l.name AS range,                           -- range name ('domain:text'); NULL for kernels in no range
    l.style,                                   -- PushPop or StartEnd
    coalesce(l.pid, (s.unranged_tid >> 24) & 16777215) AS pid, -- process
    coalesce(l.tid, s.unranged_tid & 16777215) AS tid, -- the range's thread (no range: the launching thread)
    s.range_instances,                         -- ranges of this name that hold these kernels
    s.kernel_instances,                        -- kernels
    s.total AS total_time_ns,                  -- summed GPU time (a kernel in two same-named ranges twice)
    s.total / s.num AS avg_ns,                 -- mean kernel duration
    s.med AS med_ns,                           -- median kernel duration
    s.min AS min_ns,                           -- shortest kernel
    s.max AS max_ns,                           -- longest kernel
    coalesce(sqrt(s.variance), 0) AS stddev_ns, -- sample standard deviation (0 for one kernel)
    CASE WHEN s.name_id < 0 THEN '[CUDA graph ' || (-1 - s.name_id) || ']' -- as graph_executions names them
         ELSE n.value END AS kernel_name,      -- kernel name (demangled, short or mangled), '[CUDA graph N]'
    s.foreign_kernels,                         -- process mode: kernels launched by other threads than the range's
    s.foreign_tids                             -- process mode: those threads
FROM summary AS s
LEFT JOIN (SELECT DISTINCT label_id, name, style, pid, tid FROM labels) AS l ON l.label_id = s.label_id
LEFT JOIN strings AS n ON n.id = s.name_id
