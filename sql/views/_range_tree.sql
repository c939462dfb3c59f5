-- name: _range_tree
-- kind: view
-- params: none
-- needs: _range_parents
-- _range_tree: the nesting of NVTX ranges per attribution mode: each range's parent (see _range_parents), its
-- level and the stack of range ids from the top, as nsys' nvtx_gpu_proj_trace prints them.
-- One recursion per attribution; filter on attribution and only that one runs.
WITH RECURSIVE
thread_nodes AS MATERIALIZED (
    SELECT range_id, parent_id FROM _range_parents WHERE attribution = 'thread'
),
thread_tree AS (
    SELECT range_id, parent_id, 0 AS level, ':' || range_id AS stack FROM thread_nodes WHERE parent_id IS NULL
    UNION ALL
    SELECT n.range_id, n.parent_id, t.level + 1, t.stack || ':' || n.range_id
    FROM thread_nodes AS n JOIN thread_tree AS t ON n.parent_id = t.range_id
),
process_nodes AS MATERIALIZED (  -- gpu mode has the same keys, hence the same tree
    SELECT range_id, parent_id FROM _range_parents WHERE attribution = 'process'
),
process_tree AS (
    SELECT range_id, parent_id, 0 AS level, ':' || range_id AS stack FROM process_nodes WHERE parent_id IS NULL
    UNION ALL
    SELECT n.range_id, n.parent_id, t.level + 1, t.stack || ':' || n.range_id
    FROM process_nodes AS n JOIN process_tree AS t ON n.parent_id = t.range_id
)
SELECT
    'thread' AS attribution,                   -- 'thread', 'process' or 'gpu'
    range_id,                                  -- the range (_nvtx_ranges.range_id)
    parent_id,                                 -- the tightest enclosing range (NULL at the top)
    level,                                     -- 0 at the top, then 1, 2, ... (nsys' Lvl)
    stack                                      -- ':top:...:range_id' (nsys' RangeStack)
FROM thread_tree
UNION ALL
SELECT 'process', range_id, parent_id, level, stack FROM process_tree
UNION ALL
SELECT 'gpu', range_id, parent_id, level, stack FROM process_tree
