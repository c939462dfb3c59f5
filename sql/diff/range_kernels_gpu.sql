-- name: range_kernels_gpu
-- kind: query
-- params: $attribution, $steady_after_ns, $steady_range, $steady_warmup
-- needs: _nvtx_ranges, _range_kernel_rows, nvtx_attributed_ops, steady_ops
-- range_kernels_gpu: range_kernels (see there) in the gpu attribution, where a kernel belongs to every range its
-- GPU execution overlaps (so the segments of range_kernels do not apply): the per-instance kernel times (inclusive)
-- per range name and style, and the kernel time per range name and kernel name (innermost range only), from one
-- pass of the attribution. Also the thread and process attribution's reference (tests/test_diff_range_kernels.py
-- compares range_kernels with it).
-- Parameters: $attribution ('thread' | 'process' |
-- 'gpu'; docs/nvtx.md); $steady_range, $steady_warmup, $steady_after_ns: only the kernels of the steady state
-- (steady_ops; $steady_range NULL: every kernel). The innermost range is kernel_ranges' pick: the one that started
-- last, then ends first.
-- Ends with the CTEs per_instance and per_name that _range_kernel_rows.sql (appended: diff/data.py) turns into
-- its rows.
WITH ops AS MATERIALIZED (
    SELECT op_id, range_id, range_start_ns, range_end_ns, duration_ns, name_id
    FROM nvtx_attributed_ops($attribution, false)
    WHERE kind = 'kernel' AND range_id IS NOT NULL
      AND ($steady_range IS NULL OR op_id IN (
          SELECT op_id FROM steady_ops($steady_range, $steady_warmup, $steady_after_ns) WHERE kind = 'kernel'))
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
