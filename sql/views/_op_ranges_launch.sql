-- name: _op_ranges_launch
-- kind: view
-- params: none
-- needs: _range_buckets, _range_grid, _range_ops
-- _op_ranges_launch: the thread and process attribution of every GPU operation (see _op_ranges): the CUDA API
-- call that launched it [start, end] lies inside the range (nsys' rule). thread: on the range's thread; process:
-- on any thread of its process. The call is looked up in the bucket of _range_buckets holding its start, then
-- tested for containment.  Filter on attribution: only that one runs. One branch per attribution, each joined on
-- integers alone: with the attribution a join key (a string), the join at 50 M kernels took 7.2-7.6 s under DuckDB's
-- 1 GB (its table out of core) against 3.0 s this way.
WITH thread_ops AS (  -- each operation with its key in the attribution
    SELECT 'thread' AS attribution, o.*, o.launch_global_tid AS key FROM _range_ops AS o
),
process_ops AS (
    SELECT 'process' AS attribution, o.*, o.global_pid AS key FROM _range_ops AS o
),
placed AS (
    SELECT l.*, s.range_id, s.start_ns AS range_start_ns, s.end_ns AS range_end_ns
    FROM thread_ops AS l
    LEFT JOIN (SELECT key, shift FROM _range_grid WHERE attribution = 'thread') AS g ON g.key = l.key
    LEFT JOIN (SELECT key, bucket, range_id, start_ns, end_ns FROM _range_buckets WHERE attribution = 'thread') AS s
        ON s.key = l.key AND s.bucket = l.launch_start_ns >> g.shift
       AND s.start_ns <= l.launch_start_ns AND s.end_ns >= l.launch_start_ns AND s.end_ns >= l.launch_end_ns
    UNION ALL
    SELECT l.*, s.range_id, s.start_ns AS range_start_ns, s.end_ns AS range_end_ns
    FROM process_ops AS l
    LEFT JOIN (SELECT key, shift FROM _range_grid WHERE attribution = 'process') AS g ON g.key = l.key
    LEFT JOIN (SELECT key, bucket, range_id, start_ns, end_ns FROM _range_buckets WHERE attribution = 'process') AS s
        ON s.key = l.key AND s.bucket = l.launch_start_ns >> g.shift
       AND s.start_ns <= l.launch_start_ns AND s.end_ns >= l.launch_start_ns AND s.end_ns >= l.launch_end_ns
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
    l.range_id AS range_id,                    -- the range (NULL: in no range)
    l.range_start_ns AS range_start_ns,        -- range start (ns)
    l.range_end_ns AS range_end_ns             -- range end (ns)
FROM placed AS l
