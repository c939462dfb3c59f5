-- name: kernel_ranges
-- kind: view
-- params: none
-- needs: _nvtx_ranges, _op_ranges, _range_tree, graph_executions, strings
-- kernel_ranges: each CUDA kernel (and whole CUDA graph execution, kind 'graph') with each NVTX range it belongs to,
-- in three attributions; filter on attribution.
-- A kernel counts in every enclosing range (inclusive,
-- as nsys counts); keep `innermost` rows for exclusive totals that add up to the kernel total. Kernels in no
-- range are not listed. Modes (docs/nvtx.md):
--   thread   the API call that launched it ran inside the range, on the range's thread (nsys' rule)
--   process  the launching call ran inside the range's window, on any thread of the process
--   gpu      its GPU execution overlaps the range's window (same process)
SELECT
    a.attribution AS attribution,              -- 'thread', 'process' or 'gpu'
    a.kind AS kind,                            -- 'kernel', or 'graph' for a whole CUDA graph execution
    a.op_id AS kernel_id,                      -- rowid in raw.CUPTI_ACTIVITY_KIND_KERNEL (kind 'graph': in
                                               -- raw.CUPTI_ACTIVITY_KIND_GRAPH_TRACE, graph_executions.op_id)
    a.range_id AS range_id,                    -- NVTX_EVENTS row id of the range
    r.name AS range,                           -- range name as nsys prints it ('domain:text')
    r.style AS range_style,                    -- PushPop or StartEnd
    r.tid AS range_tid,                        -- thread that started the range
    t.level AS depth,                          -- nesting level of the range in this attribution (0 = outermost)
    row_number() OVER (
        PARTITION BY a.attribution, a.kind, a.op_id ORDER BY a.range_start_ns DESC, a.range_end_ns, a.range_id DESC
    ) = 1 AS innermost,                        -- true for the kernel's innermost range (what --exclusive keeps)
    a.range_start_ns AS range_start_ns,        -- range start (ns)
    a.range_end_ns AS range_end_ns,            -- range end (ns)
    a.start_ns AS start_ns,                    -- kernel GPU start (ns)
    a.end_ns AS end_ns,                        -- kernel GPU end (ns)
    a.duration_ns AS duration_ns,              -- kernel GPU duration (ns)
    coalesce(n.value, g.name) AS name,         -- kernel name (demangled), or '[CUDA graph N]'
    a.device AS device,                        -- CUDA device id
    a.stream AS stream,                        -- CUDA stream id
    (a.global_pid >> 24) & 16777215 AS pid,    -- process
    a.launch_global_tid & 16777215 AS launch_tid, -- thread that launched the kernel
    a.correlation_id AS correlation_id         -- correlation id (links to cuda_api)
FROM _op_ranges AS a
JOIN _nvtx_ranges AS r ON r.range_id = a.range_id
LEFT JOIN _range_tree AS t ON t.attribution = a.attribution AND t.range_id = a.range_id
LEFT JOIN strings AS n ON n.id = a.name_id
LEFT JOIN graph_executions AS g ON a.kind = 'graph' AND g.op_id = a.op_id
WHERE a.kind IN ('kernel', 'graph')
