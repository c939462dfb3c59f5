-- name: attention_pieces
-- kind: query
-- params: $after_ns, $attention, $attribution, $fused_names, $mask_regex, $matmul_names, $ops, $output, $scores, $softmax, $warmup
-- needs: _nvtx_ranges, graph_executions, strings, warm_reach
-- attention_pieces: the GPU time of each attention instance (an NVTX range named $attention), split into the pieces
-- given by its sub-ranges, one row per instance. Kernels belong to a range as kernel_ranges says in attribution $attribution
-- (docs/nvtx.md); a kernel of the attention range that is in none of its sub-ranges is in piece 'unassigned' (work
-- between the sub-ranges), or 'fused' when its name is in $fused_names (a fused attention kernel).
-- Needs: _nvtx_ranges, _op_ranges, strings, graph_executions (what kernel_ranges reads; its nesting levels and
-- innermost flags, a window over every attributed kernel, are not needed here).
-- Parameters (range names match the range's text, 'forward', or its full name, ':forward'):
--   $attribution                          'thread' | 'process' | 'gpu'
--   $attention                     the attention range
--   $scores, $softmax, $output     the sub-ranges of QK^T, softmax and attention x V
--   $mask_regex                    kernels of a sub-range whose name matches it are piece 'mask'
--   $fused_names                   names (demangled, or '[CUDA graph N]') of fused attention kernels; [] for none
--   $matmul_names                  names of GEMM kernels (the category rules' matmul group): the QK^T and attention
--                                  x V pieces also give these kernels' time alone, what their FLOPs and bytes are of
--   $warmup                        a range whose instances hold warm-up work; NULL: none
--   $after_ns                      instances starting before it are warm-up too; NULL: none
--   $ops                           the attribution read: _op_ranges, or a table of its rows holding at least those
--                                  of mode $attribution in the attention and sub-ranges (sql/attention/attributed_ops.sql)
-- The grouping is on integers (instance, kernel id) and the result one row per instance: at 10 M kernels the
-- attention ranges hold 1.7 M kernels, which a grouping by kernel name kept whole in memory.
WITH attn AS (
    SELECT range_id, pid, start_ns, end_ns, row_number() OVER (ORDER BY start_ns, range_id) AS instance
    FROM _nvtx_ranges
    WHERE text = $attention OR name = $attention
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
ranges AS (  -- the ranges read: each instance (piece NULL) and each of its sub-ranges, under the instance's id
    SELECT range_id, range_id AS attention_id, NULL::VARCHAR AS piece, NULL::BIGINT AS sub_start_ns FROM attn
    UNION ALL
    SELECT range_id, attention_id, piece, start_ns FROM subs
),
placed AS (  -- each kernel of an instance once, in the sub-range starting first among those holding it (in gpu
             -- mode a kernel may overlap two); kernels of a sub-range outside the instance itself are left out
    SELECT r.attention_id, k.kind, k.op_id, any_value(k.duration_ns) AS duration_ns, any_value(k.name_id) AS name_id,
        arg_min(r.piece, r.sub_start_ns) AS piece
    FROM $ops AS k
    JOIN ranges AS r ON r.range_id = k.range_id
    WHERE k.attribution = $attribution AND k.kind IN ('kernel', 'graph')
    GROUP BY r.attention_id, k.kind, k.op_id
    HAVING bool_or(r.piece IS NULL)
),
named AS (  -- the piece of every placed kernel: mask and fused are decided by its name, and whether it is a GEMM
    SELECT p.attention_id, p.duration_ns,
        coalesce(CASE WHEN n.value IS NOT NULL THEN n.gemm ELSE list_contains($matmul_names, g.name) END, false)
            AS gemm,
        CASE WHEN p.piece IS NULL THEN
                 CASE WHEN list_contains($fused_names, coalesce(n.value, g.name)) THEN 'fused' ELSE 'unassigned' END
             WHEN CASE WHEN n.value IS NOT NULL THEN n.mask ELSE regexp_matches(g.name, $mask_regex) END THEN 'mask'
             ELSE p.piece END AS piece
    FROM placed AS p
    LEFT JOIN (SELECT id, value, regexp_matches(value, $mask_regex) AS mask,
                      list_contains($matmul_names, value) AS gemm
               FROM strings) AS n ON n.id = p.name_id
    LEFT JOIN graph_executions AS g ON p.kind = 'graph' AND g.op_id = p.op_id
),
per_instance AS (
    SELECT attention_id,
        sum(duration_ns) FILTER (WHERE piece = 'scores') AS scores_ns,
        count(*) FILTER (WHERE piece = 'scores') AS scores_kernels,
        sum(duration_ns) FILTER (WHERE piece = 'scores' AND gemm) AS scores_gemm_ns,
        count(*) FILTER (WHERE piece = 'scores' AND gemm) AS scores_gemm_kernels,
        sum(duration_ns) FILTER (WHERE piece = 'mask') AS mask_ns,
        count(*) FILTER (WHERE piece = 'mask') AS mask_kernels,
        sum(duration_ns) FILTER (WHERE piece = 'softmax') AS softmax_ns,
        count(*) FILTER (WHERE piece = 'softmax') AS softmax_kernels,
        sum(duration_ns) FILTER (WHERE piece = 'output') AS output_ns,
        count(*) FILTER (WHERE piece = 'output') AS output_kernels,
        sum(duration_ns) FILTER (WHERE piece = 'output' AND gemm) AS output_gemm_ns,
        count(*) FILTER (WHERE piece = 'output' AND gemm) AS output_gemm_kernels,
        sum(duration_ns) FILTER (WHERE piece = 'fused') AS fused_ns,
        count(*) FILTER (WHERE piece = 'fused') AS fused_kernels,
        sum(duration_ns) FILTER (WHERE piece = 'unassigned') AS unassigned_ns,
        count(*) FILTER (WHERE piece = 'unassigned') AS unassigned_kernels
    FROM named
    GROUP BY attention_id
)
SELECT
    a.instance AS instance,                    -- 1, 2, ... in start order
    a.range_id AS range_id,                    -- NVTX_EVENTS row id of the attention range
    a.start_ns AS start_ns,                    -- range start (ns)
    a.end_ns - a.start_ns AS range_time_ns,    -- range duration (CPU-side wall time, ns)
    ($after_ns IS NOT NULL AND a.start_ns < $after_ns) OR coalesce(w.reach_ns >= a.end_ns, false)
        AS in_warmup,                          -- inside a warm-up range, or before $after_ns
    coalesce(k.scores_ns, 0) AS scores_ns,     -- summed GPU time of the kernels of piece QK^T (ns)
    coalesce(k.scores_kernels, 0) AS scores_kernels, -- their number
    coalesce(k.scores_gemm_ns, 0) AS scores_gemm_ns, -- of which GEMM kernels ($matmul_names) (ns)
    coalesce(k.scores_gemm_kernels, 0) AS scores_gemm_kernels, -- their number
    coalesce(k.mask_ns, 0) AS mask_ns,         -- mask: kernels of a sub-range matching $mask_regex
    coalesce(k.mask_kernels, 0) AS mask_kernels, -- their number
    coalesce(k.softmax_ns, 0) AS softmax_ns,   -- softmax
    coalesce(k.softmax_kernels, 0) AS softmax_kernels, -- their number
    coalesce(k.output_ns, 0) AS output_ns,     -- attention x V
    coalesce(k.output_kernels, 0) AS output_kernels, -- their number
    coalesce(k.output_gemm_ns, 0) AS output_gemm_ns, -- of which GEMM kernels ($matmul_names) (ns)
    coalesce(k.output_gemm_kernels, 0) AS output_gemm_kernels, -- their number
    coalesce(k.fused_ns, 0) AS fused_ns,       -- fused attention kernels outside the sub-ranges
    coalesce(k.fused_kernels, 0) AS fused_kernels, -- their number
    coalesce(k.unassigned_ns, 0) AS unassigned_ns, -- other kernels of the instance, in none of its sub-ranges
    coalesce(k.unassigned_kernels, 0) AS unassigned_kernels -- their number
FROM attn AS a
ASOF LEFT JOIN warm_reach($warmup) AS w ON w.pid = a.pid AND a.start_ns >= w.start_ns  -- in a warm-up range
LEFT JOIN per_instance AS k ON k.attention_id = a.range_id
ORDER BY instance
