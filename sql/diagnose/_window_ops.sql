-- name: _window_ops
-- kind: query
-- params: $from_ns, $graphs, $to_ns
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, graph_executions, memcpy, memset
-- _window_ops: every GPU operation (kernel, memcpy, memset, whole CUDA graph execution) that overlaps the time
-- window, as nsys' expert rules (gpu_gaps, gpu_time_util) see them; created as the view _diag.window_ops.
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL (as _kernel_rows reads it), memcpy, memset, graph_executions.
-- Params: $graphs: whole CUDA graph executions count (nsys analyze: false); $from_ns, $to_ns: the time window; an
-- operation is kept when it overlaps [from, to), as nsys' start=/end= filter does (operations are not clipped).
-- Operations with start 0 are dropped, as in nsys.
WITH
    ops AS (
        SELECT start AS start_ns, "end" AS end_ns, (globalPid >> 24) & 16777215 AS pid, deviceId AS device,
               contextId AS context, streamId AS stream, correlationId AS correlation_id, 'kernel' AS op,
               CAST(1 AS TINYINT) AS work, rowid * 4 AS op_key
        FROM compat.CUPTI_ACTIVITY_KIND_KERNEL  -- = _kernel_rows without the names, which would cost three joins
        UNION ALL
        SELECT start_ns, end_ns, pid, device, context, stream, correlation_id, 'memcpy' AS op, 0 AS work,
               op_id * 4 + 1
        FROM memcpy
        UNION ALL
        SELECT start_ns, end_ns, pid, device, context, stream, correlation_id, 'memset' AS op, 0 AS work,
               op_id * 4 + 2
        FROM memset
        UNION ALL  -- graphs traced whole: their kernels are not in _kernel_rows
        SELECT start_ns, end_ns, pid, device, context, stream, correlation_id, 'graph' AS op, 1 AS work,
               op_id * 4 + 3
        FROM graph_executions
        WHERE $graphs
    )
SELECT
    start_ns,         -- operation start (ns)
    end_ns,           -- operation end (ns)
    pid,              -- process
    device,           -- CUDA device id
    context,          -- CUDA context id
    stream,           -- CUDA stream id
    correlation_id,   -- links to cuda_api.correlation_id
    op,               -- 'kernel', 'memcpy', 'memset' or 'graph'
    work,             -- the same as a number, constant per branch (the pass reads no text): 1 kernel or graph,
                      -- 0 copy or memset
    op_key            -- the operation in one number: its row id (_range_ops.op_id) * 4 + 0 kernel, 1 memcpy,
                      -- 2 memset, 3 graph
FROM ops
WHERE start_ns > 0
  AND ((start_ns >= $from_ns AND start_ns < $to_ns) OR (end_ns >= $from_ns AND end_ns < $to_ns)
       OR (start_ns < $from_ns AND end_ns >= $to_ns))
