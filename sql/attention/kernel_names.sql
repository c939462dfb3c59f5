-- name: kernel_names
-- kind: query
-- params: $after_ns, $attribution, $ops, $range, $warmup
-- needs: _nvtx_ranges, compat.CUPTI_ACTIVITY_KIND_KERNEL, graph_executions, strings
-- kernel_names: GPU time per kernel name of the kernels launched inside NVTX ranges matching $range (text,
-- full name or a glob over either), warm-up left out; with $range NULL, of all kernels but the warm-up ones.
-- The attribution
-- (_op_ranges, as kernel_ranges lists it) is read once, joined only to the ranges that decide; with $range given,
-- the kernels' durations and names come with it (every kernel is read only with $range NULL), and only kernels
-- that may lie in two deciding ranges are grouped (grouping every kernel was most of the query's time).
-- With $range NULL no range is wanted: the warm-up ranges are read, all grouped.
-- Parameters: $attribution ('thread' | 'process' | 'gpu', see kernel_ranges); $range; $warmup (a range whose kernels are
-- warm-up, NULL: none); $after_ns (kernels of range instances, or with $range NULL kernels, starting before it are
-- warm-up, NULL: none); $ops (the attribution read: _op_ranges, or a table of its rows holding at least those of
-- mode $attribution in the $range and $warmup ranges, e.g. the report's, made once for all its sections).
WITH ranges AS (  -- the ranges that decide: wanted (the $range instances kept) and warm-up ones
    SELECT range_id, global_pid, start_ns, end_ns,
        $range IS NOT NULL AND (text = $range OR name = $range OR text GLOB $range OR name GLOB $range)
            AND ($after_ns IS NULL OR start_ns >= $after_ns) AS wanted,
        coalesce(text = $warmup OR name = $warmup, false) AS warm
    FROM _nvtx_ranges
),
deciding AS (  -- grouped: its kernels may lie in another deciding range too, so each kernel's flags are grouped
               -- over its rows. In process mode a kernel launched inside two ranges of its process lies where they
               -- meet, so a wanted range that meets no other deciding range holds kernels of no other one (they
               -- are counted as they come), and a warm-up range that meets no wanted range decides nothing (its
               -- rows are dropped); in the other modes every range is grouped (thread: a range ended elsewhere is
               -- in no attribution; gpu: a kernel's execution may overlap two ranges that do not meet).
    SELECT range_id, wanted, warm,
        $attribution <> 'process' OR $range IS NULL
            OR (wanted AND (warm OR coalesce(max(end_ns) FILTER (wanted) OVER before >= start_ns, false)
                            OR coalesce(min(start_ns) FILTER (wanted) OVER after <= end_ns, false)
                            OR coalesce(max(end_ns) FILTER (warm) OVER before >= start_ns, false)
                            OR coalesce(min(start_ns) FILTER (warm) OVER after <= end_ns, false)))
            OR (warm AND (wanted OR coalesce(max(end_ns) FILTER (wanted) OVER before >= start_ns, false)
                          OR coalesce(min(start_ns) FILTER (wanted) OVER after <= end_ns, false))) AS grouped
    FROM ranges
    WHERE wanted OR warm
    WINDOW before AS (PARTITION BY global_pid ORDER BY start_ns, range_id
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
           after AS (PARTITION BY global_pid ORDER BY start_ns, range_id
                     ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
),
attributed AS MATERIALIZED (  -- one pass over the attribution: the kernels of the ranges that decide
    SELECT a.kind, a.op_id, a.duration_ns, a.name_id, r.wanted, r.warm, r.grouped
    FROM $ops AS a
    JOIN (SELECT * FROM deciding WHERE wanted OR grouped) AS r ON r.range_id = a.range_id
    WHERE a.attribution = $attribution AND a.kind IN ('kernel', 'graph')
),
flags AS (  -- the kernels of grouped ranges: in a wanted range, in a warm-up range, or both
    SELECT kind, op_id, any_value(duration_ns) AS duration_ns, any_value(name_id) AS name_id,
        bool_or(wanted) AS wanted, bool_or(warm) AS warm
    FROM attributed
    WHERE grouped
    GROUP BY kind, op_id
),
work AS (  -- kernels, and graphs traced whole (graph_executions), as kernel_ranges lists them
    SELECT 'kernel' AS kind, k.rowid AS op_id, k.start AS start_ns, k."end" - k.start AS duration_ns,
        k.demangledName AS name_id, NULL AS graph_name
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    UNION ALL
    SELECT 'graph', op_id, start_ns, duration_ns, NULL, name FROM graph_executions
),
wanted AS (  -- $range given: the kernels of wanted ranges that are not grouped, as they come, and the grouped ones
    SELECT kind, op_id, duration_ns, name_id FROM attributed WHERE wanted AND NOT grouped
    UNION ALL
    SELECT kind, op_id, duration_ns, name_id FROM flags WHERE wanted AND NOT warm
),
chosen AS (
    SELECT f.name_id, g.name AS graph_name, f.duration_ns
    FROM wanted AS f
    LEFT JOIN graph_executions AS g ON f.kind = 'graph' AND g.op_id = f.op_id
    WHERE $range IS NOT NULL
    UNION ALL
    SELECT w.name_id, w.graph_name, w.duration_ns  -- $range NULL: every kernel but the warm-up ones
    FROM work AS w
    LEFT JOIN flags AS f ON f.kind = w.kind AND f.op_id = w.op_id
    WHERE $range IS NULL
      AND ($after_ns IS NULL OR w.start_ns >= $after_ns)
      AND NOT coalesce(f.warm, false)
)
SELECT
    coalesce(s.value, c.graph_name, '') AS name, -- demangled kernel name, or '[CUDA graph N]'
    count(*) AS instances,                     -- executions
    sum(c.duration_ns) AS total_time_ns        -- summed GPU time (ns)
FROM chosen AS c
LEFT JOIN strings AS s ON s.id = c.name_id
GROUP BY ALL
ORDER BY total_time_ns DESC, name
