-- gpu_utilization: busy time of each process/device per chunk of its GPU span, counting a moment once however
-- many streams run then (busy union across streams). Busy islands (_busy_islands.sql) are cut at chunk
-- boundaries by unnesting the chunks they cover.
-- Needs: _diag.busy_islands(kernels_only), _diag.chunks(chunks).
-- Params: $chunks: number of chunks per span.
WITH
    islands AS (SELECT * FROM _diag.busy_islands(false)),
    grid AS (SELECT DISTINCT pid, device, span_start_ns, chunk_ns FROM _diag.chunks($chunks)),
    pieces AS (
        SELECT i.pid, i.device, i.start_ns, i.end_ns,
               unnest(range((i.start_ns - g.span_start_ns) // g.chunk_ns,
                            (i.end_ns - g.span_start_ns + g.chunk_ns - 1) // g.chunk_ns)) AS chunk
        FROM islands AS i JOIN grid AS g ON g.pid = i.pid AND g.device = i.device
    ),
    busy AS (
        SELECT c.pid, c.device, c.chunk,
               sum(greatest(least(p.end_ns, c.chunk_end_ns) - greatest(p.start_ns, c.chunk_start_ns), 0)) AS busy_ns
        FROM pieces AS p
        JOIN _diag.chunks($chunks) AS c ON c.pid = p.pid AND c.device = p.device AND c.chunk = p.chunk
        GROUP BY c.pid, c.device, c.chunk
    )
SELECT
    c.pid,                                         -- process
    c.device,                                      -- CUDA device id
    c.chunk_start_ns,                              -- chunk start (ns)
    c.chunk_end_ns,                                -- chunk end (ns)
    CAST(coalesce(b.busy_ns, 0) AS BIGINT) AS busy_ns -- time at least one GPU operation runs (ns)
FROM _diag.chunks($chunks) AS c
LEFT JOIN busy AS b ON b.pid = c.pid AND b.device = c.device AND b.chunk = c.chunk
ORDER BY c.pid, c.device, c.chunk_start_ns
