-- name: nvtx_attributed_ops
-- kind: table_macro
-- params: want_attribution, innermost_only, with_graphs := false
-- needs: _op_ranges_gpu, _op_ranges_launch
-- nvtx_attributed_ops(want_attribution, innermost_only, with_graphs := false): table macro, _op_ranges of one attribution mode, inclusive
-- (an operation in every enclosing range, as nsys counts) or, with innermost_only, in its innermost range alone
-- (the range that started last; ties: the one that ends first): totals then add up to the GPU total.
-- Needs: _op_ranges_launch, _op_ranges_gpu, named in a string (query_table) so that a query binds only the one
-- its attribution reads. The innermost pick is a window over all rows; with innermost_only false it is never run.
--   want_attribution 'thread' | 'process' | 'gpu'
--   innermost_only   true | false
--   with_graphs      true: whole CUDA graph executions (kind 'graph') too; false (default): as nsys, without them
-- Columns: those of _op_ranges_launch.
SELECT *                                       -- the columns of _op_ranges
FROM query_table(CASE WHEN want_attribution = 'gpu' THEN '_op_ranges_gpu' ELSE '_op_ranges_launch' END)
WHERE attribution = want_attribution AND NOT innermost_only AND (with_graphs OR kind <> 'graph')
UNION ALL
SELECT *
FROM query_table(CASE WHEN want_attribution = 'gpu' THEN '_op_ranges_gpu' ELSE '_op_ranges_launch' END)
WHERE attribution = want_attribution AND innermost_only AND (with_graphs OR kind <> 'graph')
QUALIFY row_number() OVER (
    PARTITION BY kind, op_id ORDER BY range_start_ns DESC, range_end_ns, range_id DESC
) = 1
