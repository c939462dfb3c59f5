-- kernel_names: GPU time per kernel name of the kernels launched inside NVTX ranges matching $range (text,
-- full name or a glob over either), warm-up left out; with $range NULL, of all kernels but the warm-up ones.
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, graph_executions, _op_ranges, _nvtx_ranges, strings. The attribution
-- (_op_ranges, as kernel_ranges lists it) is read once, joined only to the ranges that decide.
-- Parameters: $mode ('thread' | 'process' | 'gpu', see kernel_ranges); $range; $warmup (a range whose kernels are
-- warm-up, NULL: none); $after_ns (kernels of range instances, or with $range NULL kernels, starting before it are
-- warm-up, NULL: none).
WITH ranges AS (  -- the ranges that decide: wanted (the $range instances kept) and warm-up ones
    SELECT range_id,
        $range IS NOT NULL AND (text = $range OR name = $range OR text GLOB $range OR name GLOB $range)
            AND ($after_ns IS NULL OR start_ns >= $after_ns) AS wanted,
        coalesce(text = $warmup OR name = $warmup, false) AS warm
    FROM _nvtx_ranges
),
flags AS (  -- one pass over the attribution: each kernel in a wanted range, in a warm-up range, or both
    SELECT a.kind, a.op_id, bool_or(r.wanted) AS wanted, bool_or(r.warm) AS warm
    FROM _op_ranges AS a
    JOIN (SELECT * FROM ranges WHERE wanted OR warm) AS r ON r.range_id = a.range_id
    WHERE a.mode = $mode AND a.kind IN ('kernel', 'graph')
    GROUP BY a.kind, a.op_id
),
work AS (  -- kernels, and graphs traced whole (graph_executions), as kernel_ranges lists them
    SELECT 'kernel' AS kind, k.rowid AS op_id, k.start AS start_ns, k."end" - k.start AS duration_ns,
        k.demangledName AS name_id, NULL AS graph_name
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    UNION ALL
    SELECT 'graph', op_id, start_ns, duration_ns, NULL, name FROM graph_executions
),
chosen AS (
    SELECT w.name_id, w.graph_name, w.duration_ns
    FROM work AS w
    LEFT JOIN flags AS f ON f.kind = w.kind AND f.op_id = w.op_id
    WHERE ($range IS NULL OR coalesce(f.wanted, false))
      AND ($range IS NOT NULL OR $after_ns IS NULL OR w.start_ns >= $after_ns)
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
