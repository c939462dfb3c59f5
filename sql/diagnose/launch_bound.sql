-- launch_bound: per chunk of each process/device's GPU span, kernel time, the kernels shorter than $short_ns
-- and the kernels that ran shorter than the CPU call that launched them (graph launches excluded: one call
-- launches many kernels).
-- Needs: _diag.gpu_ops, _diag.chunks(chunks), cuda_api.
-- Params: $short_ns: a kernel shorter than this is short (ns); $chunks: number of chunks per span.
WITH
    launches AS (
        SELECT correlation_id, pid, duration_ns FROM cuda_api
        WHERE (name ILIKE 'cudaLaunch%' OR name ILIKE 'cuLaunch%') AND name NOT ILIKE '%graph%'
    ),
    grid AS (SELECT DISTINCT pid, device, span_start_ns, chunk_ns FROM _diag.chunks($chunks)),
    k AS (  -- each kernel's chunk number, before the join: the join carries only what the sums need
        SELECT o.pid, o.device, o.correlation_id, (o.start_ns - g.span_start_ns) // g.chunk_ns AS chunk,
               o.end_ns - o.start_ns AS duration_ns
        FROM _diag.gpu_ops AS o
        JOIN grid AS g ON g.pid = o.pid AND g.device = o.device
        WHERE o.op = 'kernel'
    ),
    per_chunk AS (  -- summed per chunk number first, then joined to the chunks (an equi-join on 30 rows)
        SELECT k.pid, k.device, k.chunk,
            count(*) AS kernels,
            sum(k.duration_ns) AS kernel_ns,
            count(*) FILTER (WHERE k.duration_ns < $short_ns) AS short_kernels,
            coalesce(sum(k.duration_ns) FILTER (WHERE k.duration_ns < $short_ns), 0) AS short_kernel_ns,
            count(l.duration_ns) AS launched,
            count(*) FILTER (WHERE k.duration_ns < l.duration_ns) AS shorter_than_launch,
            coalesce(sum(l.duration_ns - k.duration_ns) FILTER (WHERE k.duration_ns < l.duration_ns), 0)
                AS launch_excess_ns
        FROM k
        LEFT JOIN launches AS l ON l.correlation_id = k.correlation_id AND l.pid = k.pid
        GROUP BY ALL
    )
SELECT
    c.pid,                                                          -- process
    c.device,                                                       -- CUDA device id
    c.chunk_start_ns,                                               -- chunk start (ns)
    c.chunk_end_ns,                                                 -- chunk end (ns)
    sum(p.kernels) AS kernels,                                      -- kernels starting in the chunk
    sum(p.kernel_ns) AS kernel_ns,                                  -- their GPU time (ns)
    sum(p.short_kernels) AS short_kernels,                          -- kernels shorter than $short_ns
    sum(p.short_kernel_ns) AS short_kernel_ns,                      -- their time (ns)
    sum(p.launched) AS launched,                                    -- kernels whose launch call is traced
    sum(p.shorter_than_launch) AS shorter_than_launch,              -- kernels shorter than their launch call
    sum(p.launch_excess_ns) AS launch_excess_ns                     -- launch time beyond their run time (ns)
FROM per_chunk AS p
JOIN _diag.chunks($chunks) AS c ON c.pid = p.pid AND c.device = p.device AND c.chunk = p.chunk
GROUP BY c.pid, c.device, c.chunk_start_ns, c.chunk_end_ns
ORDER BY c.pid, c.device, c.chunk_start_ns
