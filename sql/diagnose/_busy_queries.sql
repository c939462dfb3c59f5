-- name: _busy_queries
-- kind: query
-- params: $chunks
-- needs: _diag.chunks, _diag.copies, kernels
-- _busy_queries: the times at which sweep.py measures busy time (the busy time of the islands before each time):
-- the start and end of every host<->device copy, on the kernel-only islands (copy_bottleneck: how long a kernel
-- ran during the copy), and the chunk boundaries, on the islands of all work (gpu_utilization).
-- Needs: _diag.copies, _diag.chunks(chunks).
-- Params: $chunks: number of chunks per span.
-- Unsorted and with repeats: sweep.py sorts the times and drops the repeats with numpy (at 20 M kernels, 1.5 M
-- times, a UNION and ORDER BY here took 1 s).
SELECT
    kernels,                                        -- true: kernel-only islands; false: all work
    pid,                                            -- process
    device,                                         -- CUDA device id
    t                                               -- the time (ns)
FROM (
    SELECT true AS kernels, pid, device, start_ns AS t FROM _diag.copies
    UNION ALL
    SELECT true, pid, device, end_ns FROM _diag.copies
    UNION ALL
    SELECT false, pid, device, chunk_start_ns FROM _diag.chunks($chunks)
    UNION ALL
    SELECT false, pid, device, chunk_end_ns FROM _diag.chunks($chunks)
)
