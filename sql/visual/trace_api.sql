-- name: trace_api
-- kind: query
-- params: $pid_base, $shift_ns
-- needs: _visual_driver, _visual_runtime, strings
-- trace_api: Chrome trace events (JSON text, one per row) for the CUDA runtime and driver calls in the window: a
-- complete event ("ph": "X") on the calling thread's track.
-- Needs (temp views visual/data.py creates): _visual_runtime, _visual_driver, strings.
-- Params: $pid_base: added to every process id (0 for the first profile of an export); $shift_ns: added to every
-- time, which puts this profile's events on the export's common clock (the ranks' clocks aligned; 0 for one profile).
SELECT
    json_object('name', coalesce(s.value, '?'), 'cat', 'cuda_api', 'ph', 'X',
                'ts', (c.start + $shift_ns) / 1000.0,
                'dur', (c."end" - c.start) / 1000.0, 'pid', $pid_base + ((c.globalTid >> 24) & 16777215),
                'tid', c.globalTid & 16777215, 'args', json_object('correlation_id', c.correlationId))::VARCHAR AS event -- one event
FROM (SELECT * FROM _visual_runtime UNION ALL SELECT * FROM _visual_driver) AS c
LEFT JOIN strings AS s ON s.id = c.nameId
