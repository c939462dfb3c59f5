-- _op_ranges: every GPU operation with each NVTX range it belongs to, per attribution mode; an operation in no
-- range has one row with range_id NULL. No range join over all pairs: ranges are listed per time bucket
-- (_range_buckets) and an operation meets only the ranges of its own bucket(s). Filter on mode (and kind): only
-- that part is computed.
-- Needs: _range_ops, _range_grid, _range_buckets.
--   thread, process  the launching API call [start, end] lies inside the range (nsys' rule; thread: on the
--                    range's thread, process: on any thread of its process), looked up in the bucket of the
--                    call's start
--   gpu              the operation's GPU execution [start, end] overlaps the range (same process, on the
--                    process grid). An operation within one bucket (nearly all) is looked up there; one that
--                    spans several meets each range in the first bucket they share, and gets a NULL row only
--                    if it meets none.
-- The thread and process branches differ only in the key (the launching thread, the process).
WITH thread_located AS (
    SELECT o.*, o.launch_global_tid AS key, o.launch_start_ns >> g.shift AS bucket
    FROM _range_ops AS o
    LEFT JOIN (SELECT key, shift FROM _range_grid WHERE mode = 'thread') AS g ON g.key = o.launch_global_tid
),
process_located AS (
    SELECT o.*, o.global_pid AS key, o.launch_start_ns >> g.shift AS bucket
    FROM _range_ops AS o
    LEFT JOIN (SELECT key, shift FROM _range_grid WHERE mode = 'process') AS g ON g.key = o.global_pid
),
gpu_located AS (
    SELECT o.*, o.start_ns >> g.shift AS first_bucket, o.end_ns >> g.shift AS last_bucket, g.shift
    FROM _range_ops AS o
    LEFT JOIN (SELECT key, shift FROM _range_grid WHERE mode = 'process') AS g ON g.key = o.global_pid
),
gpu_buckets AS (
    SELECT * FROM _range_buckets WHERE mode = 'process'
),
gpu_spanning AS (  -- operations over several buckets, once per bucket
    SELECT *, unnest(range(first_bucket, last_bucket + 1)) AS bucket
    FROM gpu_located
    WHERE last_bucket > first_bucket
),
gpu_spanning_met AS (  -- their ranges, each pair in the first bucket both lie in
    SELECT l.*, s.range_id, s.start_ns AS range_start_ns, s.end_ns AS range_end_ns
    FROM gpu_spanning AS l
    JOIN gpu_buckets AS s
        ON s.key = l.global_pid AND s.bucket = l.bucket AND s.start_ns <= l.end_ns AND s.end_ns >= l.start_ns
       AND l.bucket = greatest(l.first_bucket, s.start_ns >> l.shift)
),
gpu_met AS (
    SELECT l.*, s.range_id, s.start_ns AS range_start_ns, s.end_ns AS range_end_ns
    FROM (SELECT * FROM gpu_located WHERE last_bucket = first_bucket OR shift IS NULL) AS l
    LEFT JOIN gpu_buckets AS s
        ON s.key = l.global_pid AND s.bucket = l.first_bucket AND s.start_ns <= l.end_ns AND s.end_ns >= l.start_ns
    UNION ALL
    SELECT * EXCLUDE (bucket) FROM gpu_spanning_met
    UNION ALL
    SELECT l.*, NULL, NULL, NULL
    FROM gpu_located AS l
    WHERE l.last_bucket > l.first_bucket
      AND NOT EXISTS (SELECT 1 FROM gpu_spanning_met AS m WHERE m.kind = l.kind AND m.op_id = l.op_id)
)
SELECT
    'thread' AS mode,                          -- 'thread', 'process' or 'gpu'
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
    s.end_ns AS range_end_ns                   -- range end (ns)
FROM thread_located AS l
LEFT JOIN (SELECT * FROM _range_buckets WHERE mode = 'thread') AS s
    ON s.key = l.key AND s.bucket = l.bucket
   AND s.start_ns <= l.launch_start_ns AND s.end_ns >= l.launch_start_ns AND s.end_ns >= l.launch_end_ns
UNION ALL
SELECT
    'process', l.kind, l.op_id, l.start_ns, l.end_ns, l.duration_ns, l.global_pid, l.correlation_id, l.device,
    l.stream, l.launch_global_tid, l.name_id, l.short_name_id, l.mangled_name_id, s.range_id, s.start_ns, s.end_ns
FROM process_located AS l
LEFT JOIN (SELECT * FROM _range_buckets WHERE mode = 'process') AS s
    ON s.key = l.key AND s.bucket = l.bucket
   AND s.start_ns <= l.launch_start_ns AND s.end_ns >= l.launch_start_ns AND s.end_ns >= l.launch_end_ns
UNION ALL
SELECT
    'gpu', g.kind, g.op_id, g.start_ns, g.end_ns, g.duration_ns, g.global_pid, g.correlation_id, g.device,
    g.stream, g.launch_global_tid, g.name_id, g.short_name_id, g.mangled_name_id, g.range_id, g.range_start_ns,
    g.range_end_ns
FROM gpu_met AS g
