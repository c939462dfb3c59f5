-- name: nvtx_kernel_durations
-- kind: query
-- params: $attribution, $exclusive, $graphs, $name_kind
-- needs: _nvtx_ranges, graph_executions, nvtx_attributed_ops, shown_name_id, strings
-- nvtx_kernel_durations: how many kernels of each (range name, style, kernel name) ran for each duration, as
-- nvtx_kernel_summary places them (a kernel in two same-named ranges counts twice, as there): the distribution
-- that the combined nvtx_kern_sum of many ranks is merged from exactly.
-- Parameters as nvtx_kernel_summary:
-- $attribution, $exclusive, $graphs, $name_kind.
SELECT
    r.name AS range,                           -- range name ('domain:text'); NULL for kernels in no range
    r.style,                                   -- PushPop or StartEnd
    coalesce(n.value, g.name) AS kernel_name,  -- kernel name (demangled, short or mangled), '[CUDA graph N]'
    a.duration_ns,                             -- one duration that occurs (ns)
    count(*) AS instances                      -- how many (range, kernel) placements lasted that long
FROM nvtx_attributed_ops($attribution, $exclusive, with_graphs := $graphs) AS a
LEFT JOIN _nvtx_ranges AS r ON r.range_id = a.range_id
LEFT JOIN graph_executions AS g ON a.kind = 'graph' AND g.op_id = a.op_id
LEFT JOIN strings AS n
    ON a.kind = 'kernel' AND n.id = shown_name_id($name_kind, a.name_id, a.short_name_id, a.mangled_name_id)
WHERE a.kind = 'kernel' OR a.kind = 'graph'
GROUP BY ALL
ORDER BY range NULLS FIRST, style, kernel_name, duration_ns
