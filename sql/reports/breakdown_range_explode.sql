-- breakdown_range_explode: the operations of _breakdown_placed (breakdown_range_ops.sql), one row per operation
-- and NVTX range it belongs to, for the per-range busy-time sweep. Needs: _breakdown_placed, _range_sets.
-- No parameters. Columns: those of breakdown_range_ops, with `part` = the NVTX range instead of the set id.
SELECT
    o.* EXCLUDE (part),                        -- the operation, as in breakdown_range_ops
    r.part AS part                             -- the NVTX range
FROM _breakdown_placed AS o
JOIN _range_sets AS r ON r.set_id::VARCHAR = o.part
