-- range_kernels_gpu: range_kernels (see there) in the gpu attribution, where a kernel belongs to every range its
-- GPU execution overlaps (so the segments of range_kernels do not apply): GPU kernel time per NVTX range instance
-- (inclusive) and per range name and kernel name (innermost range only), from one pass of the attribution. Also
-- the thread and process attribution's reference (tests/test_diff.py compares range_kernels with it).
-- Needs: nvtx_attributed_ops, _nvtx_ranges, strings. Parameters: $mode ('thread' | 'process' | 'gpu';
-- docs/nvtx.md). The innermost range is kernel_ranges' pick: the one that started last, then ends first.
-- Rows with kernel NULL are per instance (range_id set); rows with range_id NULL are per range and kernel name.
WITH ops AS MATERIALIZED (
    SELECT op_id, range_id, range_start_ns, range_end_ns, duration_ns, name_id
    FROM nvtx_attributed_ops($mode, false)
    WHERE kind = 'kernel' AND range_id IS NOT NULL
),
innermost AS (
    SELECT
        arg_max(range_id, (range_start_ns, -range_end_ns, range_id)) AS range_id,
        any_value(name_id) AS name_id,
        any_value(duration_ns) AS duration_ns
    FROM ops
    GROUP BY op_id
),
per_name AS (
    SELECT r.name AS range, i.name_id, sum(i.duration_ns) AS kernel_ns, count(*) AS kernels
    FROM innermost AS i
    JOIN _nvtx_ranges AS r ON r.range_id = i.range_id
    GROUP BY ALL
)
SELECT
    range_id,                                  -- NVTX_EVENTS row id; NULL on per-name rows
    NULL AS range,                             -- range name; NULL on per-instance rows
    NULL AS kernel,                            -- demangled kernel name; NULL on per-instance rows
    sum(duration_ns) AS kernel_ns,             -- summed kernel GPU time (ns): instance rows inclusive, name rows innermost
    count(*) AS kernels                        -- kernels counted in kernel_ns
FROM ops
GROUP BY range_id
UNION ALL
SELECT NULL, p.range, s.value, p.kernel_ns, p.kernels
FROM per_name AS p
LEFT JOIN strings AS s ON s.id = p.name_id
ORDER BY range_id, range, kernel
