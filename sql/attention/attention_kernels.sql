-- attention_kernels: the GPU time of each attention instance (an NVTX range named $attention), split into the pieces
-- given by its sub-ranges, one row per instance, piece and kernel name. Kernels belong to a range as kernel_ranges
-- says in mode $mode (docs/nvtx.md); a kernel of the attention range that is in none of its sub-ranges is in piece
-- 'unassigned' (a fused attention kernel, or work between the sub-ranges).
-- Needs: _nvtx_ranges, _op_ranges, strings, graph_executions (what kernel_ranges reads; its nesting levels and
-- innermost flags, a window over every attributed kernel, are not needed here).
-- Parameters (range names match the range's text, 'forward', or its full name, ':forward'):
--   $mode                          'thread' | 'process' | 'gpu'
--   $attention                     the attention range
--   $scores, $softmax, $output     the sub-ranges of QK^T, softmax and attention x V
--   $mask_regex                    kernels of a sub-range whose name matches it are piece 'mask'
--   $warmup                        a range whose instances hold warm-up work; NULL: none
--   $after_ns                      instances starting before it are warm-up too; NULL: none
--   $ops                           the attribution read: _op_ranges, or a table of its rows holding at least those
--                                  of mode $mode in the attention and sub-ranges (sql/attention/attributed_ops.sql)
-- An instance with no kernel is listed once, piece 'unassigned', with 0 kernels.
WITH attn AS (
    SELECT range_id, pid, start_ns, end_ns, row_number() OVER (ORDER BY start_ns, range_id) AS instance
    FROM _nvtx_ranges
    WHERE text = $attention OR name = $attention
),
warm AS (
    SELECT pid, start_ns, end_ns FROM _nvtx_ranges WHERE text = $warmup OR name = $warmup
),
candidates AS (  -- ranges named as a sub-range
    SELECT range_id, pid, start_ns, end_ns,
        CASE WHEN text = $scores OR name = $scores THEN 'scores'
             WHEN text = $softmax OR name = $softmax THEN 'softmax'
             ELSE 'output' END AS piece
    FROM _nvtx_ranges
    WHERE text IN ($scores, $softmax, $output) OR name IN ($scores, $softmax, $output)
),
attn_nested AS (  -- attention instances that touch or overlap another of their process (rare: nested calls)
    SELECT *,
        coalesce(max(end_ns) OVER w >= start_ns, false)
            OR coalesce(lead(start_ns) OVER (PARTITION BY pid ORDER BY start_ns, range_id) <= end_ns, false) AS nested
    FROM attn
    WINDOW w AS (PARTITION BY pid ORDER BY start_ns, range_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
subs AS (  -- each sub-range inside an attention instance: disjoint instances by one ASOF join (the only instance
           -- that can hold a sub-range is the last one starting before it), nested ones by a join over them alone
    SELECT a.range_id AS attention_id, s.range_id, s.start_ns, s.piece
    FROM candidates AS s
    ASOF JOIN (SELECT * FROM attn_nested WHERE NOT nested) AS a ON a.pid = s.pid AND s.start_ns >= a.start_ns
    WHERE s.end_ns <= a.end_ns AND s.range_id <> a.range_id
    UNION ALL
    SELECT a.range_id, s.range_id, s.start_ns, s.piece
    FROM candidates AS s
    JOIN (SELECT * FROM attn_nested WHERE nested) AS a
      ON s.pid = a.pid AND s.start_ns >= a.start_ns AND s.end_ns <= a.end_ns AND s.range_id <> a.range_id
),
attributed AS MATERIALIZED (  -- the attribution (_op_ranges, as kernel_ranges lists it) read once, for these ranges
    SELECT k.range_id, k.kind, k.op_id AS kernel_id, k.duration_ns, k.name_id
    FROM $ops AS k
    WHERE k.mode = $mode AND k.kind IN ('kernel', 'graph')
      AND k.range_id IN (SELECT range_id FROM attn UNION ALL SELECT range_id FROM subs)
),
attn_kernels AS (
    SELECT k.range_id AS attention_id, k.kind, k.kernel_id, k.duration_ns,
        coalesce(n.value, g.name) AS name,     -- kernel name (demangled), or '[CUDA graph N]'
        CASE WHEN n.value IS NOT NULL THEN n.mask ELSE regexp_matches(g.name, $mask_regex) END AS mask
    FROM attributed AS k
    JOIN attn AS a ON a.range_id = k.range_id
    LEFT JOIN (SELECT id, value, regexp_matches(value, $mask_regex) AS mask FROM strings) AS n ON n.id = k.name_id
    LEFT JOIN graph_executions AS g ON k.kind = 'graph' AND g.op_id = k.kernel_id
),
sub_kernels AS (  -- one sub-range per kernel (in gpu mode a kernel may overlap two: the earlier one takes it)
    SELECT DISTINCT ON (s.attention_id, k.kind, k.kernel_id) s.attention_id, k.kind, k.kernel_id, s.piece
    FROM attributed AS k
    JOIN subs AS s ON s.range_id = k.range_id
    ORDER BY s.attention_id, k.kind, k.kernel_id, s.start_ns
),
attn_warm AS (  -- each instance once with its warm-up flag
    SELECT a.*,
        ($after_ns IS NOT NULL AND a.start_ns < $after_ns)
            OR EXISTS (SELECT 1 FROM warm AS w WHERE w.pid = a.pid AND w.start_ns <= a.start_ns AND a.end_ns <= w.end_ns)
            AS in_warmup
    FROM attn AS a
)
SELECT
    a.instance AS instance,                    -- 1, 2, ... in start order
    a.range_id AS range_id,                    -- NVTX_EVENTS row id of the attention range
    a.start_ns AS start_ns,                    -- range start (ns)
    a.end_ns - a.start_ns AS range_time_ns,    -- range duration (CPU-side wall time, ns)
    a.in_warmup AS in_warmup,                  -- inside a warm-up range, or before $after_ns
    CASE WHEN ak.kernel_id IS NULL OR sk.piece IS NULL THEN 'unassigned'
         WHEN ak.mask THEN 'mask'
         ELSE sk.piece END AS piece,           -- scores, softmax, output, mask or unassigned
    coalesce(ak.name, '') AS kernel_name,      -- demangled kernel name ('' for an instance with no kernel)
    count(ak.kernel_id) AS kernels,            -- kernels of this name in this piece of this instance
    coalesce(sum(ak.duration_ns), 0) AS kernel_time_ns -- their summed GPU time (ns)
FROM attn_warm AS a
LEFT JOIN attn_kernels AS ak ON ak.attention_id = a.range_id
LEFT JOIN sub_kernels AS sk ON sk.attention_id = a.range_id AND sk.kind = ak.kind AND sk.kernel_id = ak.kernel_id
GROUP BY ALL
ORDER BY instance, piece, kernel_time_ns DESC, kernel_name
