-- name: modules_kernels
-- kind: query
-- params: $not_modules, $steady_after_ns, $steady_range, $steady_warmup, $step_glob, $step_like
-- needs: _nvtx_ranges, _range_ops, nvtx_attributed_ops, steady_ops, strings
-- modules_kernels: the GPU time of the kernels of the window (the steady state's steps, or every kernel where
-- $steady_range is NULL), grouped by the innermost module range and the innermost PyTorch op range (emit_nvtx's
-- `..., seq = N, ...`) that launched them, on the launching thread (the `thread` attribution). A module range is
-- named by a module path (`blocks.2.mlp`, or `bwd:blocks.2.mlp` on autograd's thread): dotted identifiers that
-- are not a step range ($step_glob, or a numbered step: $step_like) nor one of $not_modules (the phase names),
-- or a plain name (`block_2`, `mlp`): each kernel has the chain of module ranges around it, outermost first.
-- Innermost = the enclosing range that started last. A kernel in no op range but inside autograd's
-- `autograd::engine::evaluate_function: X` (the engine's own work after node X: summing a gradient to its input's
-- shape, accumulating it into the next node's input) takes the op range of node X (`X, seq = N`, the first op range
-- inside it). Kernels in neither kind of
-- range are one row with both NULL (they count in the step).
--   $not_modules     names that are phases, not modules ('forward', 'backward', ...)
--   $step_glob       the step ranges ('step_*'), never modules, whatever the window
--   $step_like       a regular expression of numbered steps' names (iteration0, batch_3), never modules either
--   $steady_range, $steady_warmup, $steady_after_ns   the steady state (steady_ops)
WITH window_kernels AS (
    SELECT o.op_id, o.duration_ns, (o.global_pid >> 24) & 16777215 AS pid, o.name_id
    FROM _range_ops AS o
    WHERE o.kind = 'kernel'
      AND ($steady_range IS NULL OR o.op_id IN (
          SELECT s.op_id FROM steady_ops($steady_range, $steady_warmup, $steady_after_ns) AS s
          WHERE s.kind = 'kernel'))
),
held AS (  -- each range that holds a kernel, by launch on the range's thread
    SELECT a.op_id AS kernel_id, a.range_id, a.range_start_ns, r.tid AS range_tid,
        CASE WHEN r.domain IS NULL THEN r.text ELSE r.name END AS name
    FROM nvtx_attributed_ops('thread', false) AS a
    JOIN _nvtx_ranges AS r ON r.range_id = a.range_id
    WHERE a.kind = 'kernel' AND a.range_id IS NOT NULL
),
tagged AS (
    SELECT *,
        regexp_full_match(regexp_replace(name, '^bwd:', ''), '[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*')
            AND NOT list_contains($not_modules, regexp_replace(name, '^bwd:', ''))
            AND NOT coalesce(regexp_replace(name, '^bwd:', '') GLOB $step_glob, false)
            AND NOT regexp_full_match(regexp_replace(name, '^bwd:', ''), $step_like) AS is_module,
        name LIKE '%, seq = %' AS is_op,
        name LIKE 'autograd::engine::evaluate_function: %' AS is_engine
    FROM held
),
innermost AS (
    SELECT kernel_id,
        -- every enclosing module range, not the innermost alone: plain ranges (block_2 > mlp) name a module by
        -- their nesting, and `mlp` alone would merge every block's
        string_agg(name, ' > ' ORDER BY range_start_ns, range_id) FILTER (WHERE is_module) AS module,
        arg_max(name, range_start_ns) FILTER (WHERE is_op) AS op,
        arg_max(range_tid, range_start_ns) FILTER (WHERE is_op) AS op_tid,
        arg_max(range_id, range_start_ns) FILTER (WHERE is_engine) AS engine_id
    FROM tagged
    WHERE is_module OR is_op OR is_engine
    GROUP BY kernel_id
),
nodes AS (  -- each engine range's node: the first op range that starts inside it on its thread (NVTX ranges of a
            -- thread nest, so one that starts inside ends inside); a window over the thread's ranges, not a range join
    SELECT range_id AS engine_id, node_op AS op, tid AS op_tid
    FROM (
        SELECT r.range_id, r.tid, r.end_ns, r.text LIKE 'autograd::engine::evaluate_function: %' AS is_engine,
            first_value(CASE WHEN r.text LIKE '%, seq = %' THEN r.text END IGNORE NULLS) OVER later AS node_op,
            first_value(CASE WHEN r.text LIKE '%, seq = %' THEN r.start_ns END IGNORE NULLS) OVER later AS node_start
        FROM _nvtx_ranges AS r
        WHERE r.text LIKE 'autograd::engine::evaluate_function: %' OR r.text LIKE '%, seq = %'
        WINDOW later AS (PARTITION BY r.pid, r.tid ORDER BY r.start_ns, r.text LIKE '%, seq = %', r.range_id
                         ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
    )
    WHERE is_engine AND node_start < end_ns
)
SELECT
    k.pid AS pid,                              -- process that launched the kernels
    i.module AS module,                        -- the module ranges around the kernel, outermost first, joined by
                                               -- ' > ' ('blocks.2 > blocks.2.mlp', 'bwd:block_3'); NULL: none
    coalesce(i.op, n.op) AS op,                -- innermost op range (its full emit_nvtx text); NULL: none
    coalesce(i.op_tid, n.op_tid) AS op_tid,    -- thread of that op range
    s.value AS kernel,                         -- kernel name (demangled)
    sum(k.duration_ns) AS total_ns,            -- summed GPU duration (ns)
    count(*) AS kernels                        -- kernel count
FROM window_kernels AS k
LEFT JOIN innermost AS i ON i.kernel_id = k.op_id
LEFT JOIN nodes AS n ON n.engine_id = CASE WHEN i.op IS NULL THEN i.engine_id END  -- an equality: a hash join
LEFT JOIN strings AS s ON s.id = k.name_id
GROUP BY ALL
ORDER BY pid, module NULLS FIRST, op NULLS FIRST, op_tid NULLS FIRST, kernel
