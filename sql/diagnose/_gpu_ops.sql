-- name: _gpu_ops
-- kind: query
-- params: $from_ns, $to_ns
-- needs: _diag.spans, _diag.window_ops, compat.PROFILER_OVERHEAD, strings
-- _gpu_ops: every GPU operation of the window (_diag.window_ops) plus the CUDA profiling overhead that falls
-- inside a process/device's GPU span, as nsys' expert rules (gpu_gaps, gpu_time_util) see them; created as the
-- view _diag.gpu_ops (a view: nothing per operation is kept in memory, each rule scans the cached tables).
-- Params: $from_ns, $to_ns: the time window (overhead overlapping it is kept).
WITH
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
    op,               -- 'kernel', 'memcpy', 'memset', 'graph' or 'overhead'
    work,             -- 1 kernel or graph, 0 copy or memset, 2 profiling overhead
    op_key            -- the operation: _range_ops.op_id * 4 + its kind (see _window_ops; NULL for overhead)
FROM _diag.window_ops
UNION ALL
SELECT o.start_ns, o.end_ns, o.pid, s.device, s.context, NULL, NULL, 'overhead', CAST(2 AS TINYINT), NULL
FROM overhead AS o
JOIN _diag.spans AS s ON s.pid = o.pid AND o.start_ns > s.start_ns AND o.end_ns < s.end_ns
