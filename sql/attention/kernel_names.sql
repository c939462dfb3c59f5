-- kernel_names: GPU time per kernel name of the kernels launched inside NVTX ranges matching $range (text,
-- full name or a glob over either), warm-up left out; with $range NULL, of all kernels but the warm-up ones.
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, graph_executions, kernel_ranges, _nvtx_ranges, strings.
-- Parameters: $mode ('thread' | 'process' | 'gpu', see kernel_ranges); $range; $warmup (a range whose kernels are
-- warm-up, NULL: none); $after_ns (kernels of range instances, or with $range NULL kernels, starting before it are
-- warm-up, NULL: none).
WITH wanted AS (
    SELECT DISTINCT k.kind, k.kernel_id
    FROM kernel_ranges AS k
    JOIN _nvtx_ranges AS r ON r.range_id = k.range_id
    WHERE k.mode = $mode
      AND (r.text = $range OR r.name = $range OR r.text GLOB $range OR r.name GLOB $range)
      AND ($after_ns IS NULL OR r.start_ns >= $after_ns)
),
warm AS (
    SELECT DISTINCT k.kind, k.kernel_id
    FROM kernel_ranges AS k
    JOIN _nvtx_ranges AS r ON r.range_id = k.range_id
    WHERE k.mode = $mode AND (r.text = $warmup OR r.name = $warmup)
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
    WHERE ($range IS NULL OR (w.kind, w.op_id) IN (SELECT kind, kernel_id FROM wanted))
      AND ($range IS NOT NULL OR $after_ns IS NULL OR w.start_ns >= $after_ns)
      AND (w.kind, w.op_id) NOT IN (SELECT kind, kernel_id FROM warm)
)
SELECT
    coalesce(s.value, c.graph_name, '') AS name, -- demangled kernel name, or '[CUDA graph N]'
    count(*) AS instances,                     -- executions
    sum(c.duration_ns) AS total_time_ns        -- summed GPU time (ns)
FROM chosen AS c
LEFT JOIN strings AS s ON s.id = c.name_id
GROUP BY ALL
ORDER BY total_time_ns DESC, name
