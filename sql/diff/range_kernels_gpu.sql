-- range_kernels_gpu: range_kernels (see there) in the gpu attribution, where a kernel belongs to every range its
-- GPU execution overlaps (so the segments of range_kernels do not apply): the per-instance kernel times (inclusive)
-- per range name and style, and the kernel time per range name and kernel name (innermost range only), from one
-- pass of the attribution. Also the thread and process attribution's reference (tests/test_diff_range_kernels.py
-- compares range_kernels with it).
-- Needs: nvtx_attributed_ops, _nvtx_ranges, strings. Parameters: $mode ('thread' | 'process' | 'gpu';
-- docs/nvtx.md). The innermost range is kernel_ranges' pick: the one that started last, then ends first.
-- Rows with a style are per range name, style and instance kernel time; rows without one per range and kernel.
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
),
per_instance AS (
    SELECT range_id, sum(duration_ns) AS kernel_ns
    FROM ops
    GROUP BY range_id
)
SELECT
    r.name AS range,                           -- range name ('domain:text')
    r.style AS style,                          -- PushPop or StartEnd; NULL on per-kernel rows
    NULL AS kernel,                            -- demangled kernel name; NULL on per-instance rows
    coalesce(i.kernel_ns, 0) AS kernel_ns,     -- instance rows: one instance's kernel time (inclusive); kernel
                                               -- rows: the kernel's summed time in ranges of this name (innermost)
    count(*) AS n                              -- instance rows: instances with exactly that kernel time; kernel
                                               -- rows: kernels counted
FROM _nvtx_ranges AS r
LEFT JOIN per_instance AS i ON i.range_id = r.range_id
GROUP BY ALL
UNION ALL
SELECT p.range, NULL, s.value, p.kernel_ns, p.kernels
FROM per_name AS p
LEFT JOIN strings AS s ON s.id = p.name_id
ORDER BY range, style, kernel, kernel_ns
