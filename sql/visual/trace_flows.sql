-- name: trace_flows
-- kind: query
-- params: $file, $gpu_pid_base, $overlap_tid_offset, $pid_base, $shift_ns
-- needs: _visual_driver, _visual_early_ops, _visual_graphs, _visual_kernels, _visual_memcpy, _visual_memset, _visual_runtime
-- trace_flows: Chrome trace flow events (JSON text, one per row), an arrow from each CUDA call to the kernel, copy
-- or memset it launched (same correlation id, same process): a flow start ("s") 1 ns into the call on its thread,
-- and a flow end ("f", "bp": "e", bound to the enclosing slice) in the middle of the operation on its stream.
-- Neither sits on a slice's first timestamp, so each binds to its own slice whatever the order of equal
-- timestamps, and the start comes before the end (Perfetto reads flows in time order).
-- A correlation id names one CUDA call per process (checked on every fixture and reference profile); a call that
-- launched several operations (a CUDA graph) gets an arrow to each.
-- Needs (temp views and tables visual/data.py creates): _visual_kernels, _visual_memcpy, _visual_memset, _visual_graphs,
-- _visual_runtime, _visual_driver, _visual_early_ops. Params: $pid_base, $shift_ns, $gpu_pid_base,
-- $overlap_tid_offset as in trace_api.sql and trace_gpu.sql; $file: the profile's place in the export (flow ids
-- are integers, as Perfetto's JSON reader wants them, from a hash of the profile, process, correlation id, stream
-- and start).
WITH ops AS (
    SELECT 'kernel' AS kind, rowid AS op_id, start, "end", deviceId, streamId, correlationId, globalPid
    FROM _visual_kernels
    UNION ALL SELECT 'memcpy', rowid, start, "end", deviceId, streamId, correlationId, globalPid FROM _visual_memcpy
    UNION ALL SELECT 'memset', rowid, start, "end", deviceId, streamId, correlationId, globalPid FROM _visual_memset
    UNION ALL SELECT 'graph', rowid, start, "end", deviceId, streamId, correlationId, globalPid FROM _visual_graphs
),
calls AS (
    SELECT start, "end", globalTid, correlationId FROM _visual_runtime
    UNION ALL SELECT start, "end", globalTid, correlationId FROM _visual_driver
),
flows AS (
    SELECT c.start AS c_start, c."end" AS c_end, c.globalTid AS global_tid, o.start AS o_start, o."end" AS o_end,
           o.deviceId, o.streamId, e.op_id IS NOT NULL AS early,
           hash($file, o.globalPid, o.correlationId, o.start, o.streamId) >> 12 AS flow_id -- < 2^52: exact in JSON
    FROM ops AS o
    JOIN calls AS c ON c.correlationId = o.correlationId AND (c.globalTid >> 24) = (o.globalPid >> 24)
    LEFT JOIN _visual_early_ops AS e ON e.kind = o.kind AND e.op_id = o.op_id
)
SELECT json_object('name', 'launch', 'cat', 'flow', 'ph', 's', 'id', flow_id,
                   'ts', (c_start + least(1, c_end - c_start) + $shift_ns) / 1000.0,
                   'pid', $pid_base + ((global_tid >> 24) & 16777215), 'tid', global_tid & 16777215)::VARCHAR AS event -- one event
FROM flows
UNION ALL
SELECT json_object('name', 'launch', 'cat', 'flow', 'ph', 'f', 'bp', 'e', 'id', flow_id,
                   'ts', (o_start + (o_end - o_start) // 2 + $shift_ns) / 1000.0,
                   'pid', $gpu_pid_base + coalesce(deviceId, 0),
                   'tid', CASE WHEN early THEN $overlap_tid_offset + streamId ELSE streamId END)::VARCHAR
FROM flows
