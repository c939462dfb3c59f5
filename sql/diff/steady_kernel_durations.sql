-- name: steady_kernel_durations
-- kind: query
-- params: $steady_after_ns, $steady_range, $steady_warmup
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, steady_ops, strings
-- steady_kernel_durations: kernel_durations (how often each kernel duration occurs, per demangled and short kernel
-- name) over the steady state only: the kernels whose launching call ran inside a kept step instance (steady_ops,
-- nsys_analytics/nvtx/steady.py), the window `diff` compares per step.
-- Parameters: $steady_range (the step ranges, a
-- glob), $steady_warmup (warm-up range, NULL: none), $steady_after_ns (steps starting before it are warm-up, NULL:
-- none).
WITH steady AS (
    SELECT op_id FROM steady_ops($steady_range, $steady_warmup, $steady_after_ns) WHERE kind = 'kernel'
),
grouped AS (
    SELECT k.demangledName AS demangled_id, coalesce(k.shortName, k.demangledName) AS short_id,
           k."end" - k.start AS duration_ns, count(*) AS instances
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    SEMI JOIN steady AS s ON s.op_id = k.rowid
    GROUP BY ALL
)
SELECT
    d.value AS demangled,                      -- demangled kernel name (nsys' default Name)
    s.value AS short,                          -- short name (nsys' :base)
    p.duration_ns,                             -- one kernel duration (ns)
    p.instances                                -- steady-state kernels of this name that ran exactly this long
FROM grouped AS p
LEFT JOIN strings AS d ON d.id = p.demangled_id
LEFT JOIN strings AS s ON s.id = p.short_id
ORDER BY demangled, short, duration_ns
