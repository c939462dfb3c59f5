-- name: launch_bound
-- kind: query
-- params: $chunks, $from_ns, $long_launch_ns, $short_ns, $to_ns
-- needs: _diag.chunks, _one_kernel_launches, _range_ops
-- launch_bound: per chunk of each process/device's GPU span, kernel time, the kernels shorter than $short_ns
-- and the kernels that ran shorter than the CPU call that launched them (graph launches excluded: one call
-- launches many kernels). A launch call longer than $long_launch_ns is no launch overhead (the first launch of a
-- kernel loading its module, or a full launch queue: the GPU busy) and is only counted.
-- The kernels come with their launching call from _range_ops (matched as nsys matches them: same correlation id,
-- same process), which the cache stores: no join of every kernel with every CUDA call here. They are the kernels
-- of _diag.gpu_ops: start > 0, overlapping the window.
-- Needs: _range_ops, _one_kernel_launches (the calls that launch one kernel), _diag.chunks(chunks).
-- Params: $short_ns: a kernel shorter than this is short (ns); $chunks: number of chunks per span;
-- $from_ns, $to_ns: the time window; $long_launch_ns: a launch call longer than this is not overhead (ns).
WITH
    grid AS (SELECT DISTINCT pid, device, span_start_ns, chunk_ns FROM _diag.chunks($chunks)),
    k AS (  -- each kernel's chunk number and the duration of its launch call (NULL: not a traced launch)
        SELECT g.pid, g.device, (o.start_ns - g.span_start_ns) // g.chunk_ns AS chunk, o.duration_ns,
               CASE WHEN o.launch_name_id IN (SELECT id FROM _one_kernel_launches)
                    THEN o.launch_end_ns - o.launch_start_ns END AS launch_ns
        FROM _range_ops AS o
        JOIN grid AS g ON g.pid = (o.global_pid >> 24) & 16777215 AND g.device = o.device
        WHERE o.kind = 'kernel' AND o.start_ns > 0
          AND ((o.start_ns >= $from_ns AND o.start_ns < $to_ns) OR (o.end_ns >= $from_ns AND o.end_ns < $to_ns)
               OR (o.start_ns < $from_ns AND o.end_ns >= $to_ns))
    ),
    per_chunk AS (  -- summed per chunk number first, then joined to the chunks (an equi-join on 30 rows)
        SELECT pid, device, chunk,
            count(*) AS kernels,
            sum(duration_ns) AS kernel_ns,
            count(*) FILTER (WHERE duration_ns < $short_ns) AS short_kernels,
            coalesce(sum(duration_ns) FILTER (WHERE duration_ns < $short_ns), 0) AS short_kernel_ns,
            count(launch_ns) AS launched,
            count(*) FILTER (WHERE duration_ns < launch_ns AND launch_ns <= $long_launch_ns) AS shorter_than_launch,
            coalesce(sum(launch_ns - duration_ns) FILTER (WHERE duration_ns < launch_ns
                                                          AND launch_ns <= $long_launch_ns), 0) AS launch_excess_ns,
            count(*) FILTER (WHERE launch_ns > $long_launch_ns) AS long_launches
        FROM k
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
    sum(p.launch_excess_ns) AS launch_excess_ns,                    -- launch time beyond their run time (ns)
    sum(p.long_launches) AS long_launches                           -- launch calls over $long_launch_ns (not counted)
FROM per_chunk AS p
JOIN _diag.chunks($chunks) AS c ON c.pid = p.pid AND c.device = p.device AND c.chunk = p.chunk
GROUP BY c.pid, c.device, c.chunk_start_ns, c.chunk_end_ns
ORDER BY c.pid, c.device, c.chunk_start_ns
