-- name: _op_ranges_launch
-- kind: view
-- params: none
-- needs: _range_buckets, _range_grid, _range_ops
-- _op_ranges_launch: the thread and process attribution of every GPU operation (see _op_ranges): the CUDA API
-- call that launched it [start, end] lies inside the range (nsys' rule). thread: on the range's thread; process:
-- on any thread of its process. The call is looked up in the bucket of _range_buckets holding its start, then
-- tested for containment.  Filter on attribution: only that one runs.
WITH located AS (  -- each operation once per attribution, with its key in it
    SELECT m.attribution, o.*, CASE m.attribution WHEN 'thread' THEN o.launch_global_tid ELSE o.global_pid END AS key
    FROM _range_ops AS o
    CROSS JOIN (VALUES ('thread'), ('process')) AS m(attribution)
),
bucketed AS (
    SELECT l.*, l.launch_start_ns >> g.shift AS bucket, g.grid_id
    FROM located AS l
    LEFT JOIN _range_grid AS g ON g.attribution = l.attribution AND g.key = l.key
)
SELECT
    l.attribution AS attribution,              -- 'thread' or 'process'
    l.kind AS kind,                            -- 'kernel', 'memcpy' or 'memset'
    l.op_id AS op_id,                          -- row id in the operation's nsys table
    l.start_ns AS start_ns,                    -- GPU start (ns)
    l.end_ns AS end_ns,                        -- GPU end (ns)
    l.duration_ns AS duration_ns,              -- GPU duration (ns)
    l.global_pid AS global_pid,                -- nsys' global process id
    l.correlation_id AS correlation_id,        -- correlation id of the launch
    l.device AS device,                        -- CUDA device id
    l.stream AS stream,                        -- CUDA stream id
    l.launch_global_tid AS launch_global_tid,  -- thread of the launching API call
    l.name_id AS name_id,                      -- kernels: demangled name id
    l.short_name_id AS short_name_id,          -- kernels: base name id
    l.mangled_name_id AS mangled_name_id,      -- kernels: mangled name id
    s.range_id AS range_id,                    -- the range (NULL: in no range)
    s.start_ns AS range_start_ns,              -- range start (ns)
    s.end_ns AS range_end_ns,                  -- range end (ns)
    l.launch_name_id AS launch_name_id,        -- strings.id of the launching call's API function
    l.launch_start_ns AS launch_start_ns,      -- launching call start (ns; NULL if not traced)
    l.launch_end_ns AS launch_end_ns           -- launching call end (ns)
FROM bucketed AS l
LEFT JOIN _range_buckets AS s
    ON s.grid_id = l.grid_id AND s.bucket = l.bucket
   AND s.start_ns <= l.launch_start_ns AND s.end_ns >= l.launch_start_ns AND s.end_ns >= l.launch_end_ns
