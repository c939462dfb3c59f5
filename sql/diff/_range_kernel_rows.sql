-- name: _range_kernel_rows
-- kind: fragment
-- params: $from_ns, $steady_warmup, $to_ns
-- needs: _nvtx_ranges, strings, warm_reach
-- _range_kernel_rows: the rows of range_kernels and range_kernels_gpu, appended to either (diff/data.py), whose
-- CTEs per_instance (range_id, kernel_ns: an instance's inclusive kernel time) and per_name (range, name_id,
-- kernel_ns, kernels: the kernel time per range name and kernel name, innermost range only) it reads.
-- Parameters: $from_ns, $to_ns (NULL: every instance), $steady_warmup: the instance
-- rows keep the steady state's instances as steady_range_durations does (same rule, so their counts agree).
-- Rows with a style are per range name, style and instance kernel time; rows without one per range and kernel.
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
ASOF LEFT JOIN warm_reach($steady_warmup) AS w ON w.pid = r.pid AND r.start_ns >= w.start_ns
WHERE $from_ns IS NULL
   OR (r.start_ns BETWEEN $from_ns AND $to_ns
       AND NOT coalesce(w.reach_ns >= r.end_ns, false))
GROUP BY ALL
UNION ALL
SELECT p.range, NULL, s.value, p.kernel_ns, p.kernels
FROM per_name AS p
LEFT JOIN strings AS s ON s.id = p.name_id
ORDER BY range, style, kernel, kernel_ns
