-- copy_bottleneck: host<->device copies per chunk of each process/device's GPU span: their time, the part from
-- pageable or pinned host memory, and the part during which a kernel ran (on another stream: a stream runs one
-- operation at a time). Kernel-busy time is read from a cumulative busy-time curve over merged kernel islands
-- with two ASOF joins (no interval join).
-- Needs: _diag.busy_islands(kernels_only), _diag.chunks(chunks), memcpy.
-- Params: $from_ns, $to_ns: time window; $chunks: number of chunks per span.
WITH
    islands AS (SELECT * FROM _diag.busy_islands(true)),
    curve AS (
        SELECT *, coalesce(sum(end_ns - start_ns) OVER (PARTITION BY pid, device ORDER BY start_ns
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS busy_before_ns
        FROM islands
    ),
    copies AS (
        SELECT pid, device, start_ns, end_ns, duration_ns, bytes,
               src_memory = 'Pageable' OR dst_memory = 'Pageable' AS pageable,
               src_memory = 'Pinned' OR dst_memory = 'Pinned' AS pinned
        FROM memcpy
        WHERE copy_kind_id IN (1, 2) AND start_ns > 0
          AND ((start_ns >= $from_ns AND start_ns < $to_ns) OR (end_ns >= $from_ns AND end_ns < $to_ns)
               OR (start_ns < $from_ns AND end_ns >= $to_ns))
    ),
    at_start AS (
        SELECT c.*, coalesce(k.busy_before_ns + least(c.start_ns, k.end_ns) - k.start_ns, 0) AS busy_at_start_ns
        FROM copies AS c ASOF LEFT JOIN curve AS k
          ON k.pid = c.pid AND k.device = c.device AND k.start_ns <= c.start_ns
    ),
    overlapped AS (
        SELECT s.*, coalesce(k.busy_before_ns + least(s.end_ns, k.end_ns) - k.start_ns, 0)
                    - s.busy_at_start_ns AS overlap_ns
        FROM at_start AS s ASOF LEFT JOIN curve AS k
          ON k.pid = s.pid AND k.device = s.device AND k.start_ns <= s.end_ns
    )
SELECT
    c.pid,                                                  -- process
    c.device,                                               -- CUDA device id
    c.chunk_start_ns,                                       -- chunk start (ns)
    c.chunk_end_ns,                                         -- chunk end (ns)
    count(*) AS copies,                                     -- host<->device copies starting in the chunk
    sum(o.duration_ns) AS copy_ns,                          -- their time (ns)
    sum(o.bytes) AS bytes,                                  -- bytes they copy
    coalesce(sum(o.duration_ns) FILTER (WHERE o.pageable), 0) AS pageable_ns, -- time of copies from/to pageable memory (ns)
    coalesce(sum(o.duration_ns) FILTER (WHERE o.pinned), 0) AS pinned_ns,     -- time of copies from/to pinned memory (ns)
    sum(o.overlap_ns) AS overlap_ns                         -- copy time during which a kernel ran (ns)
FROM overlapped AS o
JOIN _diag.chunks($chunks) AS c
  ON c.pid = o.pid AND c.device = o.device AND c.chunk = (o.start_ns - c.span_start_ns) // c.chunk_ns
GROUP BY c.pid, c.device, c.chunk_start_ns, c.chunk_end_ns
ORDER BY c.pid, c.device, c.chunk_start_ns
