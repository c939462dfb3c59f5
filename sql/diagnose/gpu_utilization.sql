-- name: gpu_utilization
-- kind: query
-- params: $chunks
-- needs: _diag.busy_at, _diag.chunks
-- gpu_utilization: busy time of each process/device per chunk of its GPU span, counting a moment once however
-- many streams run then (busy union across streams): the busy curve of the islands of all work (busy time before
-- a time, measured by sweep.py at every chunk boundary) at the chunk's end minus at its start.
-- Needs: _diag.busy_at, _diag.chunks(chunks).
-- Params: $chunks: number of chunks per span.
SELECT
    c.pid,                                         -- process
    c.device,                                      -- CUDA device id
    c.chunk_start_ns,                              -- chunk start (ns)
    c.chunk_end_ns,                                -- chunk end (ns)
    CAST(coalesce(e.busy_ns, 0) - coalesce(s.busy_ns, 0) AS BIGINT) AS busy_ns -- time at least one GPU operation runs (ns)
FROM _diag.chunks($chunks) AS c
LEFT JOIN _diag.busy_at AS s
  ON NOT s.kernels AND s.pid = c.pid AND s.device = c.device AND s.t = c.chunk_start_ns
LEFT JOIN _diag.busy_at AS e
  ON NOT e.kernels AND e.pid = c.pid AND e.device = c.device AND e.t = c.chunk_end_ns
ORDER BY c.pid, c.device, c.chunk_start_ns
