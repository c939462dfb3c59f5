-- name: copy_bottleneck
-- kind: query
-- params: $chunks
-- needs: _diag.busy_at, _diag.chunks, _diag.copies
-- copy_bottleneck: host<->device copies per chunk of each process/device's GPU span: their time, the part from
-- pageable or pinned host memory, and the part during which a kernel ran (on another stream: a stream runs one
-- operation at a time). Kernel-busy time during a copy is the kernel busy curve (busy time of the merged kernel
-- islands before a time, measured by sweep.py at every copy's start and end) at its end minus at its start: two
-- equi-joins, no interval join.
-- Needs: _diag.copies, _diag.busy_at, _diag.chunks(chunks).
-- Params: $chunks: number of chunks per span.
WITH
    overlapped AS (
        SELECT c.*, coalesce(e.busy_ns, 0) - coalesce(s.busy_ns, 0) AS overlap_ns
        FROM _diag.copies AS c
        LEFT JOIN _diag.busy_at AS s
          ON s.kernels AND s.pid = c.pid AND s.device = c.device AND s.t = c.start_ns
        LEFT JOIN _diag.busy_at AS e
          ON e.kernels AND e.pid = c.pid AND e.device = c.device AND e.t = c.end_ns
    ),
    grid AS (SELECT DISTINCT pid, device, span_start_ns, chunk_ns FROM _diag.chunks($chunks)),
    per_chunk AS (  -- summed per chunk number first, then joined to the chunks (an equi-join)
        SELECT o.pid, o.device, (o.start_ns - g.span_start_ns) // g.chunk_ns AS chunk,
            count(*) AS copies,
            sum(o.duration_ns) AS copy_ns,
            sum(o.bytes) AS bytes,
            sum(o.duration_ns) FILTER (WHERE o.pageable) AS pageable_ns,
            sum(o.duration_ns) FILTER (WHERE o.pinned) AS pinned_ns,
            sum(o.overlap_ns) AS overlap_ns
        FROM overlapped AS o
        JOIN grid AS g ON g.pid = o.pid AND g.device = o.device
        GROUP BY ALL
    )
SELECT
    c.pid,                                                  -- process
    c.device,                                               -- CUDA device id
    c.chunk_start_ns,                                       -- chunk start (ns)
    c.chunk_end_ns,                                         -- chunk end (ns)
    sum(p.copies) AS copies,                                -- host<->device copies starting in the chunk
    sum(p.copy_ns) AS copy_ns,                              -- their time (ns)
    sum(p.bytes) AS bytes,                                  -- bytes they copy
    coalesce(sum(p.pageable_ns), 0) AS pageable_ns,         -- time of copies from/to pageable memory (ns)
    coalesce(sum(p.pinned_ns), 0) AS pinned_ns,             -- time of copies from/to pinned memory (ns)
    sum(p.overlap_ns) AS overlap_ns                         -- copy time during which a kernel ran (ns)
FROM per_chunk AS p
JOIN _diag.chunks($chunks) AS c ON c.pid = p.pid AND c.device = p.device AND c.chunk = p.chunk
GROUP BY c.pid, c.device, c.chunk_start_ns, c.chunk_end_ns
ORDER BY c.pid, c.device, c.chunk_start_ns
