-- name: breakdown_range_parts
-- kind: query
-- params: none
-- needs: _breakdown_chosen, _breakdown_placed
-- breakdown_range_parts: the operations of _breakdown_placed (breakdown_range_ops.sql) once per chosen NVTX range
-- name that holds them, as breakdown_by_name_busy.sql reads them (breakdown/ranges.py creates it as the temp view
-- _breakdown_ops), with the columns of _breakdown_base: `part` is the range.
SELECT
    o.* EXCLUDE (bits),                        -- the operation, as in _breakdown_base
    n.part                                     -- the NVTX range
FROM _breakdown_placed AS o
JOIN _breakdown_chosen AS n ON bit_count(o.bits & n.bit) > 0
