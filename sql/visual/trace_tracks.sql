-- name: trace_tracks
-- kind: query
-- params: $from_ns, $overlap_tid_offset, $to_ns
-- needs: _nvtx_ranges, _visual_driver, _visual_early_ops, _visual_graphs, _visual_kernels, _visual_memcpy, _visual_memset, _visual_runtime, compat.PROCESSES, compat.TARGET_INFO_CUDA_GPU, compat.TARGET_INFO_GPU, threads
-- trace_tracks: the processes, threads and GPU streams that have events in the window, named: one row per
-- track, for the trace's metadata events (process_name, thread_name, sort indexes).
-- Needs (temp views visual/data.py creates): _visual_kernels, _visual_memcpy, _visual_memset, _visual_runtime,
-- _visual_driver, _visual_graphs, _visual_early_ops; _nvtx_ranges, threads, compat.PROCESSES, compat.TARGET_INFO_GPU, compat.TARGET_INFO_CUDA_GPU.
-- Params: $from_ns, $to_ns: the window; $overlap_tid_offset as in trace_gpu.sql.
WITH host AS (
    SELECT DISTINCT (globalTid >> 24) & 16777215 AS pid, globalTid & 16777215 AS tid FROM _visual_runtime
    UNION SELECT DISTINCT (globalTid >> 24) & 16777215, globalTid & 16777215 FROM _visual_driver
    UNION SELECT DISTINCT pid, tid FROM _nvtx_ranges WHERE start_ns < $to_ns AND end_ns > $from_ns
),
gpu_ops AS (
    SELECT 'kernel' AS kind, rowid AS op_id, coalesce(deviceId, 0) AS device, streamId AS stream FROM _visual_kernels
    UNION ALL SELECT 'memcpy', rowid, coalesce(deviceId, 0), streamId FROM _visual_memcpy
    UNION ALL SELECT 'memset', rowid, coalesce(deviceId, 0), streamId FROM _visual_memset
    UNION ALL SELECT 'graph', rowid, coalesce(deviceId, 0), streamId FROM _visual_graphs
),
gpu AS (  -- each stream, and its second track when an operation starts early (see trace_gpu.sql)
    SELECT DISTINCT o.device, CASE WHEN e.op_id IS NULL THEN o.stream ELSE $overlap_tid_offset + o.stream END AS stream
    FROM gpu_ops AS o LEFT JOIN _visual_early_ops AS e ON e.kind = o.kind AND e.op_id = o.op_id
),
gpu_names AS (
    SELECT device, any_value(name) AS name FROM (
        SELECT deviceId AS device, name FROM compat.TARGET_INFO_CUDA_GPU
        UNION ALL SELECT id, name FROM compat.TARGET_INFO_GPU
    ) GROUP BY device
)
SELECT
    'host' AS kind,                            -- host: a CPU thread; gpu: a GPU stream
    h.pid AS process,                          -- pid (host) or device id (gpu)
    h.tid AS track,                            -- tid (host) or stream id (gpu)
    p.name AS process_name,                    -- process or GPU name, when recorded
    t.name AS track_name                       -- thread name, when recorded
FROM host AS h
LEFT JOIN threads AS t ON t.pid = h.pid AND t.tid = h.tid
LEFT JOIN (SELECT pid, any_value(name) AS name FROM compat.PROCESSES GROUP BY pid) AS p ON p.pid = h.pid
UNION ALL
SELECT 'gpu', g.device, g.stream, n.name, NULL
FROM gpu AS g LEFT JOIN gpu_names AS n ON n.device = g.device
ORDER BY kind DESC, process, track
