-- name: trace_nvtx
-- kind: query
-- params: $from_ns, $pid_base, $shift_ns, $to_ns
-- needs: _nvtx_ranges, nvtx_events
-- trace_nvtx: Chrome trace events (JSON text, one per row) for the NVTX ranges and marks that overlap the window:
-- push/pop ranges as complete events ("X") on their thread's track (they nest like calls), start/end ranges as
-- async begin/end pairs ("b"/"e", id = the range's row id, within its process; they may overlap), marks as thread instants ("i").
-- Params: $pid_base, $shift_ns (as in trace_api.sql); $from_ns, $to_ns: the window.
WITH ranges AS (
    SELECT * FROM _nvtx_ranges WHERE start_ns < $to_ns AND end_ns > $from_ns
),
events AS (
    SELECT start_ns AS t, json_object('name', coalesce(text, name), 'cat', 'nvtx', 'ph', 'X',
               'ts', (start_ns + $shift_ns) / 1000.0,
               'dur', duration_ns / 1000.0, 'pid', $pid_base + pid, 'tid', tid,
               'args', json_object('domain', domain, 'range_id', range_id)) AS event
    FROM ranges WHERE style = 'PushPop'
    UNION ALL
    SELECT start_ns, json_object('name', coalesce(text, name), 'cat', 'nvtx', 'ph', 'b',
               'ts', (start_ns + $shift_ns) / 1000.0,
               'pid', $pid_base + pid, 'tid', tid, 'id', range_id,
               'args', json_object('domain', domain, 'range_id', range_id))
    FROM ranges WHERE style = 'StartEnd'
    UNION ALL
    SELECT end_ns, json_object('name', coalesce(text, name), 'cat', 'nvtx', 'ph', 'e',
               'ts', (end_ns + $shift_ns) / 1000.0,
               'pid', $pid_base + pid, 'tid', tid, 'id', range_id)
    FROM ranges WHERE style = 'StartEnd'
    UNION ALL
    SELECT start_ns, json_object('name', coalesce(name, ''), 'cat', 'nvtx', 'ph', 'i', 's', 't',
               'ts', (start_ns + $shift_ns) / 1000.0, 'pid', $pid_base + pid, 'tid', tid)
    FROM nvtx_events WHERE style = 'Mark' AND start_ns >= $from_ns AND start_ns < $to_ns
)
SELECT event::VARCHAR AS event               -- one event
FROM events
