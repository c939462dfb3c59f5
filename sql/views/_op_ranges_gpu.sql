-- name: _op_ranges_gpu
-- kind: view
-- params: none
-- needs: _range_buckets, _range_grid, _range_ops
-- _op_ranges_gpu: the gpu attribution of every GPU operation (see _op_ranges): its GPU execution [start, end]
-- overlaps the range (same process, on the process grid of _range_grid). An operation within one bucket (nearly
-- all) is looked up there; one that spans several meets each range in the first bucket both lie in, and gets a
-- NULL row only if it meets none.
-- Columns: those of _op_ranges_launch.
WITH grid AS (
    SELECT key, shift FROM _range_grid WHERE attribution = 'process'
),
gpu_buckets AS (
    SELECT * FROM _range_buckets WHERE attribution = 'process'
),
gpu_single AS (  -- operations within one bucket (nearly all), or of a process without ranges
    SELECT o.*, o.start_ns >> g.shift AS first_bucket
    FROM _range_ops AS o
    LEFT JOIN grid AS g ON g.key = o.global_pid
    WHERE g.shift IS NULL OR o.end_ns >> g.shift = o.start_ns >> g.shift
),
gpu_located AS (  -- operations over several buckets: few, so written down once and read twice
    SELECT o.*, o.start_ns >> g.shift AS first_bucket, o.end_ns >> g.shift AS last_bucket, g.shift
    FROM _range_ops AS o
    JOIN grid AS g ON g.key = o.global_pid
    WHERE o.end_ns >> g.shift > o.start_ns >> g.shift
),
gpu_spanning AS (  -- once per bucket
    SELECT *, unnest(range(first_bucket, last_bucket + 1)) AS bucket
    FROM gpu_located
),
gpu_spanning_met AS (  -- their ranges, each pair in the first bucket both lie in
    SELECT l.* EXCLUDE (last_bucket, shift, bucket), s.range_id, s.start_ns AS range_start_ns,
           s.end_ns AS range_end_ns
    FROM gpu_spanning AS l
    JOIN gpu_buckets AS s
        ON s.key = l.global_pid AND s.bucket = l.bucket AND s.start_ns <= l.end_ns AND s.end_ns >= l.start_ns
       AND l.bucket = greatest(l.first_bucket, s.start_ns >> l.shift)
),
gpu_met AS (
    SELECT l.*, s.range_id, s.start_ns AS range_start_ns, s.end_ns AS range_end_ns
    FROM gpu_single AS l
    LEFT JOIN gpu_buckets AS s
        ON s.key = l.global_pid AND s.bucket = l.first_bucket AND s.start_ns <= l.end_ns AND s.end_ns >= l.start_ns
    UNION ALL
    SELECT * FROM gpu_spanning_met
    UNION ALL
    SELECT l.* EXCLUDE (last_bucket, shift), NULL, NULL, NULL
    FROM gpu_located AS l
    WHERE NOT EXISTS (SELECT 1 FROM gpu_spanning_met AS m WHERE m.kind = l.kind AND m.op_id = l.op_id)
)
SELECT
    'gpu' AS attribution, g.kind, g.op_id, g.start_ns, g.end_ns, g.duration_ns, g.global_pid, g.correlation_id, g.device,
    g.stream, g.launch_global_tid, g.name_id, g.short_name_id, g.mangled_name_id, g.range_id, g.range_start_ns,
    g.range_end_ns, g.launch_name_id, g.launch_start_ns, g.launch_end_ns
FROM gpu_met AS g
