-- _gpu_ops: every GPU operation (kernel, memcpy, memset, whole CUDA graph execution) plus the CUDA profiling overhead that falls inside
-- a process/device's GPU span, as nsys' expert rules (gpu_gaps, gpu_time_util) see them.
-- Needs: _kernel_rows, memcpy, memset, graph_executions, strings, compat.PROFILER_OVERHEAD.
-- Params: $graphs: whole CUDA graph executions count (nsys analyze: false); $from_ns, $to_ns: the time window; an operation is kept when it overlaps [from, to), as nsys'
-- start=/end= filter does (operations are not clipped). Operations with start 0 are dropped, as in nsys.
WITH
    ops AS (
        SELECT start_ns, end_ns, pid, device, context, stream, correlation_id, 'kernel' AS op FROM _kernel_rows
        UNION ALL
        SELECT start_ns, end_ns, pid, device, context, stream, correlation_id, 'memcpy' AS op FROM memcpy
        UNION ALL
        SELECT start_ns, end_ns, pid, device, context, stream, correlation_id, 'memset' AS op FROM memset
        UNION ALL  -- graphs traced whole: their kernels are not in _kernel_rows
        SELECT start_ns, end_ns, pid, device, context, stream, correlation_id, 'graph' AS op FROM graph_executions
        WHERE $graphs
    ),
    windowed AS (
        SELECT * FROM ops
        WHERE start_ns > 0
          AND ((start_ns >= $from_ns AND start_ns < $to_ns) OR (end_ns >= $from_ns AND end_ns < $to_ns)
               OR (start_ns < $from_ns AND end_ns >= $to_ns))
    ),
    span AS (
        SELECT pid, device, min(start_ns) AS start_ns, max(end_ns) AS end_ns, any_value(context) AS context
        FROM windowed
        GROUP BY pid, device
    ),
    overhead AS (
        SELECT o.start AS start_ns, o."end" AS end_ns, (o.globalTid >> 24) & 16777215 AS pid
        FROM compat.PROFILER_OVERHEAD AS o
        JOIN strings AS s ON s.id = o.nameId
        WHERE s.value IN ('CUDA profiling data flush overhead', 'CUDA profiling stop overhead',
                          'CUDA profiling overhead')
          AND ((o.start >= $from_ns AND o.start < $to_ns) OR (o."end" >= $from_ns AND o."end" < $to_ns)
               OR (o.start < $from_ns AND o."end" >= $to_ns))
    )
SELECT
    start_ns,         -- operation start (ns)
    end_ns,           -- operation end (ns)
    pid,              -- process
    device,           -- CUDA device id
    context,          -- CUDA context id
    stream,           -- CUDA stream id (NULL for profiling overhead)
    correlation_id,   -- links to cuda_api.correlation_id (NULL for profiling overhead)
    op                -- 'kernel', 'memcpy', 'memset', 'graph' or 'overhead'
FROM windowed
UNION ALL
SELECT o.start_ns, o.end_ns, o.pid, s.device, s.context, NULL, NULL, 'overhead'
FROM overhead AS o
JOIN span AS s ON s.pid = o.pid AND o.start_ns > s.start_ns AND o.end_ns < s.end_ns
ORDER BY pid, device, start_ns
