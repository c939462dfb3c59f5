-- _op_ranges: every GPU operation with each NVTX range it belongs to, per attribution mode; an operation in no
-- range has one row with range_id NULL. No range join over all pairs; filter on mode (and kind): only that part
-- is computed.
-- Needs: _range_ops, _range_grid, _range_buckets, _range_points, _range_spans.
--   thread, process  the launching API call [start, end] lies inside the range (nsys' rule; thread: on the
--                    range's thread, process: on any thread of its process). The call is looked up in the one
--                    bucket of _range_buckets holding its start, then tested for containment.
--   gpu              the operation's GPU execution [start, end] overlaps the range (same process): counted once,
--                    in the first segment of the operation where the range is open. Sort-and-sweep: ASOF joins
--                    on the segments of _range_points find where the operation starts and ends, and
--                    _range_spans lists the ranges open in each segment.
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
gpu_points AS (
    SELECT key, p, seg, open_ranges, started FROM _range_points WHERE mode = 'gpu'
),
gpu_located AS (
    SELECT o.*, coalesce(a.seg, 0) AS seg_lo, b.seg AS seg_hi,  -- segment 0: before the first boundary
           coalesce(a.open_ranges > 0 OR b.started > coalesce(a.started, 0), false) AS overlaps_any
    FROM _range_ops AS o
    ASOF LEFT JOIN gpu_points AS a ON a.key = o.global_pid AND o.start_ns >= a.p
    ASOF LEFT JOIN gpu_points AS b ON b.key = o.global_pid AND o.end_ns >= b.p
),
gpu_seg AS (  -- in its first segment an operation meets every open range; later only those starting there
    SELECT *, CASE WHEN seg = seg_lo THEN 0 ELSE seg END AS min_first_seg
    FROM (
        SELECT *, unnest(CASE WHEN overlaps_any THEN range(seg_lo, seg_hi + 1) ELSE [NULL::BIGINT] END) AS seg
        FROM gpu_located
    )
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
    g.stream, g.launch_global_tid, g.name_id, g.short_name_id, g.mangled_name_id, s.range_id, s.start_ns, s.end_ns
FROM gpu_seg AS g
LEFT JOIN (SELECT * FROM _range_spans WHERE mode = 'gpu') AS s
    ON s.key = g.global_pid AND s.seg = g.seg AND s.first_seg >= g.min_first_seg
WHERE s.range_id IS NOT NULL OR NOT g.overlaps_any
