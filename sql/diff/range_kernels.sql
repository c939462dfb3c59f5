-- name: range_kernels
-- kind: query
-- params: $attribution, $steady_after_ns, $steady_range, $steady_warmup
-- needs: _nvtx_ranges, _range_grid, _range_kernel_rows, _range_keys, _range_ops, steady_ops
-- range_kernels: how often each per-instance kernel time occurs per NVTX range name and style (an instance's
-- kernel time is inclusive, as nsys counts: a kernel in every enclosing range; instances holding none count at 0),
-- and the kernel time per range name and kernel name (innermost range only, so these add up to the attributed
-- kernel total), in the thread or process attribution (the gpu one: range_kernels_gpu). Same rows as
-- nvtx_attributed_ops($attribution, false) grouped by range and by innermost range (kernel_ranges' pick: the range that
-- started last, then ends first), without listing every (kernel, enclosing range) pair nor grouping them by kernel:
-- Each key's (thread's or process's) timeline is cut at every range start and every range end + 1 into segments;
-- within one, the ranges that hold a time are the same. A range covers the segments from the one its start opens
-- to the one before its end + 1 opens (found by equality, no range join), and each covered segment gets its
-- innermost range once. A kernel's launching call [start, end] is located in the segment holding its start (a
-- hash join on the time buckets of _range_grid); when its end lies in that segment too (nearly always), the ranges
-- holding the call are exactly the segment's ranges: the segment's innermost range and its covering ranges are the
-- kernel's. A call reaching past its segment's end keeps those of the segment's ranges that also hold its end,
-- and is picked one by one.
-- Parameters: $attribution ('thread' |
-- 'process'); $steady_range, $steady_warmup, $steady_after_ns: only the kernels of the steady state (steady_ops;
-- $steady_range NULL: every kernel).
-- Ends with the CTEs per_instance and per_name that _range_kernel_rows.sql (appended: diff/data.py) turns into
-- its rows.
WITH ranges AS MATERIALIZED (  -- ord: the innermost order (later start, then earlier end, then higher id last)
    SELECT k.key, k.range_id, k.start_ns, k.end_ns, r.name,
           row_number() OVER (PARTITION BY k.key ORDER BY k.start_ns, k.end_ns DESC, k.range_id) AS ord,
           dense_rank() OVER (ORDER BY r.name) AS name_key
    FROM _range_keys AS k
    JOIN _nvtx_ranges AS r ON r.range_id = k.range_id
    WHERE k.attribution = $attribution
),
points AS (  -- where the set of ranges holding a time changes
    SELECT key, start_ns AS t FROM ranges
    UNION
    SELECT key, end_ns + 1 FROM ranges
),
segments AS MATERIALIZED (  -- [seg_start, seg_end), numbered over all keys; a key's last one is open (seg_end NULL)
    SELECT key, t AS seg_start, CASE WHEN lead(key) OVER w = key THEN lead(t) OVER w END AS seg_end,
           row_number() OVER w AS seg
    FROM points
    WINDOW w AS (ORDER BY key, t)
),
opened AS MATERIALIZED (  -- each range with the segment its start opens (one join at a time: joined to both
                          -- sides at once, the planner may pair every two segments of a key first)
    SELECT r.*, a.seg AS first_seg
    FROM ranges AS r
    JOIN segments AS a ON a.key = r.key AND a.seg_start = r.start_ns
),
cover AS MATERIALIZED (  -- each range once per segment it covers
    SELECT unnest(range(r.first_seg, b.seg)) AS seg, r.range_id, r.end_ns, r.ord, r.name_key
    FROM opened AS r
    JOIN segments AS b ON b.key = r.key AND b.seg_start = r.end_ns + 1
),
covered AS (  -- covered segments with their innermost range's name, once per time bucket they overlap
    SELECT s.key, s.seg, s.seg_start, s.seg_end, r.name_key,
           unnest(range(s.seg_start >> g.shift, ((s.seg_end - 1) >> g.shift) + 1)) AS bucket
    FROM (SELECT seg, max(ord) AS ord FROM cover GROUP BY seg) AS p
    JOIN segments AS s ON s.seg = p.seg
    JOIN ranges AS r ON r.key = s.key AND r.ord = p.ord
    JOIN _range_grid AS g ON g.attribution = $attribution AND g.key = s.key
),
calls AS (  -- each kernel's launching call, with its key and the time bucket of its start
    SELECT o.duration_ns, o.name_id, o.launch_start_ns, o.launch_end_ns, o.key, o.op_id,
           o.launch_start_ns >> g.shift AS bucket
    FROM (
        SELECT *, CASE $attribution WHEN 'thread' THEN launch_global_tid ELSE global_pid END AS key
        FROM _range_ops
        WHERE kind = 'kernel'
          AND ($steady_range IS NULL OR op_id IN (
              SELECT op_id FROM steady_ops($steady_range, $steady_warmup, $steady_after_ns) WHERE kind = 'kernel'))
    ) AS o
    JOIN _range_grid AS g ON g.attribution = $attribution AND g.key = o.key
),
located AS MATERIALIZED (  -- each kernel whose launching call starts in a covered segment, with that segment
    SELECT o.op_id, o.duration_ns, o.name_id, c.seg, c.name_key, o.launch_end_ns < c.seg_end AS within,
           o.launch_end_ns
    FROM calls AS o
    JOIN covered AS c
        ON c.key = o.key AND c.bucket = o.bucket AND c.seg_start <= o.launch_start_ns AND o.launch_start_ns < c.seg_end
),
crossing AS MATERIALIZED (  -- calls reaching past their segment's end (few): each range that holds them
    SELECT l.op_id, l.duration_ns, l.name_id, c.range_id, c.ord, c.name_key
    FROM located AS l
    JOIN cover AS c ON c.seg = l.seg AND c.end_ns >= l.launch_end_ns
    WHERE NOT l.within
),
inclusive AS (
    SELECT c.range_id, p.kernel_ns
    FROM (SELECT seg, sum(duration_ns) AS kernel_ns FROM located WHERE within GROUP BY seg) AS p
    JOIN cover AS c ON c.seg = p.seg
    UNION ALL
    SELECT range_id, duration_ns
    FROM crossing
),
innermost AS (
    SELECT name_key, name_id, duration_ns
    FROM located
    WHERE within
    UNION ALL
    SELECT arg_max(name_key, ord), any_value(name_id), any_value(duration_ns)
    FROM crossing
    GROUP BY op_id
),
per_name AS (
    SELECT n.name AS range, i.name_id, sum(i.duration_ns) AS kernel_ns, count(*) AS kernels
    FROM innermost AS i
    JOIN (SELECT DISTINCT name_key, name FROM ranges) AS n USING (name_key)
    GROUP BY ALL
),
per_instance AS (
    SELECT range_id, sum(kernel_ns) AS kernel_ns
    FROM inclusive
    GROUP BY range_id
)
