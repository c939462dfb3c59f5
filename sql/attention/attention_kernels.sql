-- attention_kernels: the GPU time of each attention instance (an NVTX range named $attention), split into the pieces
-- given by its sub-ranges, one row per instance, piece and kernel name. Kernels belong to a range as kernel_ranges
-- says in mode $mode (docs/nvtx.md); a kernel of the attention range that is in none of its sub-ranges is in piece
-- 'unassigned' (a fused attention kernel, or work between the sub-ranges).
-- Needs: _nvtx_ranges, kernel_ranges.
-- Parameters (range names match the range's text, 'forward', or its full name, ':forward'):
--   $mode                          'thread' | 'process' | 'gpu'
--   $attention                     the attention range
--   $scores, $softmax, $output     the sub-ranges of QK^T, softmax and attention x V
--   $mask_regex                    kernels of a sub-range whose name matches it are piece 'mask'
--   $warmup                        a range whose instances hold warm-up work; NULL: none
--   $after_ns                      instances starting before it are warm-up too; NULL: none
-- An instance with no kernel is listed once, piece 'unassigned', with 0 kernels.
WITH attn AS (
    SELECT range_id, pid, start_ns, end_ns, row_number() OVER (ORDER BY start_ns, range_id) AS instance
    FROM _nvtx_ranges
    WHERE text = $attention OR name = $attention
),
warm AS (
    SELECT pid, start_ns, end_ns FROM _nvtx_ranges WHERE text = $warmup OR name = $warmup
),
subs AS (
    SELECT a.range_id AS attention_id, s.range_id, s.start_ns,
        CASE WHEN s.text = $scores OR s.name = $scores THEN 'scores'
             WHEN s.text = $softmax OR s.name = $softmax THEN 'softmax'
             ELSE 'output' END AS piece
    FROM attn AS a
    JOIN _nvtx_ranges AS s
      ON s.pid = a.pid AND s.start_ns >= a.start_ns AND s.end_ns <= a.end_ns AND s.range_id <> a.range_id
    WHERE s.text IN ($scores, $softmax, $output) OR s.name IN ($scores, $softmax, $output)
),
attn_kernels AS (
    SELECT k.range_id AS attention_id, k.kind, k.kernel_id, k.duration_ns, k.name
    FROM kernel_ranges AS k
    JOIN attn AS a ON a.range_id = k.range_id
    WHERE k.mode = $mode
),
sub_kernels AS (  -- one sub-range per kernel (in gpu mode a kernel may overlap two: the earlier one takes it)
    SELECT DISTINCT ON (s.attention_id, k.kind, k.kernel_id) s.attention_id, k.kind, k.kernel_id, s.piece
    FROM kernel_ranges AS k
    JOIN subs AS s ON s.range_id = k.range_id
    WHERE k.mode = $mode
    ORDER BY s.attention_id, k.kind, k.kernel_id, s.start_ns
)
SELECT
    a.instance AS instance,                    -- 1, 2, ... in start order
    a.range_id AS range_id,                    -- NVTX_EVENTS row id of the attention range
    a.start_ns AS start_ns,                    -- range start (ns)
    a.end_ns - a.start_ns AS range_time_ns,    -- range duration (CPU-side wall time, ns)
    ($after_ns IS NOT NULL AND a.start_ns < $after_ns)
        OR EXISTS (SELECT 1 FROM warm AS w WHERE w.pid = a.pid AND w.start_ns <= a.start_ns AND a.end_ns <= w.end_ns)
        AS in_warmup,                          -- inside a warm-up range, or before $after_ns
    CASE WHEN ak.kernel_id IS NULL OR sk.piece IS NULL THEN 'unassigned'
         WHEN regexp_matches(ak.name, $mask_regex) THEN 'mask'
         ELSE sk.piece END AS piece,           -- scores, softmax, output, mask or unassigned
    coalesce(ak.name, '') AS kernel_name,      -- demangled kernel name ('' for an instance with no kernel)
    count(ak.kernel_id) AS kernels,            -- kernels of this name in this piece of this instance
    coalesce(sum(ak.duration_ns), 0) AS kernel_time_ns -- their summed GPU time (ns)
FROM attn AS a
LEFT JOIN attn_kernels AS ak ON ak.attention_id = a.range_id
LEFT JOIN sub_kernels AS sk ON sk.attention_id = a.range_id AND sk.kind = ak.kind AND sk.kernel_id = ak.kernel_id
GROUP BY ALL
ORDER BY instance, piece, kernel_time_ns DESC, kernel_name
