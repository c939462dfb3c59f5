-- name: trace_gpu
-- kind: query
-- params: $gpu_pid_base, $overlap_tid_offset, $shift_ns
-- needs: _visual_categories, _visual_early_ops, _visual_graphs, _visual_kernels, _visual_memcpy, _visual_memset, mem_kind, strings
-- trace_gpu: Chrome trace events (JSON text, one per row) for the kernels, copies, memsets and CUDA graphs traced
-- whole in the window: a complete event ("ph": "X") on the track of their GPU (a process) and stream (a thread).
-- Needs (temp views and tables visual/data.py creates): _visual_kernels, _visual_memcpy, _visual_memset, _visual_graphs,
-- _visual_categories (name_id, category), _visual_early_ops; strings.
-- Params: $gpu_pid_base: the trace pid of device 0 of this profile (device d is $gpu_pid_base + d).
-- ts and dur are microseconds with nanosecond decimals, on the profile's clock moved by $shift_ns (as in
-- trace_api.sql), not clipped to the window.
-- An operation that starts before an earlier one on its stream has ended (Hopper's programmatic dependent launch
-- lets a kernel start early; listed in the temp table _visual_early_ops, from early_ops.sql) goes on the stream's
-- second track, tid $overlap_tid_offset + stream: slices of one track must nest for Perfetto to draw them.
WITH ops AS (
    SELECT k.start, k."end", k.deviceId, k.streamId, k.correlationId, coalesce(sn.value, dn.value) AS name,
           'kernel' AS cat, k.rowid AS op_id,
           json_object('name', dn.value, 'category', coalesce(c.category, 'other'),
                       'grid', [k.gridX, k.gridY, k.gridZ], 'block', [k.blockX, k.blockY, k.blockZ],
                       'correlation_id', k.correlationId, 'graph_node_id', k.graphNodeId) AS args
    FROM _visual_kernels AS k
    LEFT JOIN strings AS sn ON sn.id = k.shortName
    LEFT JOIN strings AS dn ON dn.id = k.demangledName
    LEFT JOIN _visual_categories AS c ON c.name_id = k.demangledName
    UNION ALL
    SELECT start, "end", deviceId, streamId, correlationId,
           'Memcpy ' || CASE copyKind WHEN 1 THEN 'HtoD' WHEN 2 THEN 'DtoH' WHEN 8 THEN 'DtoD' WHEN 10 THEN 'PtoP'
                             WHEN 9 THEN 'HtoH' ELSE 'other' END,
           'memcpy', rowid, json_object('bytes', bytes, 'src', mem_kind(srcKind), 'dst', mem_kind(dstKind),
                                 'correlation_id', correlationId)
    FROM _visual_memcpy
    UNION ALL
    SELECT start, "end", deviceId, streamId, correlationId, 'Memset', 'memset', rowid,
           json_object('bytes', bytes, 'correlation_id', correlationId)
    FROM _visual_memset
    UNION ALL
    SELECT start, "end", deviceId, streamId, correlationId, 'CUDA graph ' || graphId, 'graph', rowid,
           json_object('graph_id', graphId, 'graph_exec_id', graphExecId, 'correlation_id', correlationId)
    FROM _visual_graphs
),
placed AS (
    SELECT o.*, e.op_id IS NOT NULL AS early
    FROM ops AS o LEFT JOIN _visual_early_ops AS e ON e.kind = o.cat AND e.op_id = o.op_id
)
SELECT
    json_object('name', coalesce(name, '?'), 'cat', cat, 'ph', 'X', 'ts', (start + $shift_ns) / 1000.0,
                'dur', ("end" - start) / 1000.0,
                'pid', $gpu_pid_base + coalesce(deviceId, 0),
                'tid', CASE WHEN early THEN $overlap_tid_offset + streamId ELSE streamId END,
                'args', args)::VARCHAR AS event -- one event
FROM placed
