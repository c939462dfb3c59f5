-- name: breakdown_range_ops
-- kind: query
-- params: none
-- needs: _breakdown_base, _breakdown_chosen, _nvtx_ranges, nvtx_attributed_ops
-- breakdown_range_ops: the operations of _breakdown_base (sql/categories/breakdown_ops.sql) that belong to a chosen
-- NVTX range, by the process rule of nvtx_attributed_ops: the CUDA API call that launched it ran inside the range's
-- window, on any thread of the same process (backward kernels launched by autograd's own thread land in
-- `backward`). One row per operation, with the chosen names that hold it as bits; breakdown/ranges.py creates it as
-- the temp view _breakdown_placed, which breakdown_range_groups.sql and breakdown_range_parts.sql read.
-- Needs: _breakdown_base, _breakdown_chosen (the chosen names, each with a bit of its own: an integer or a bit
-- string, loaded by breakdown/ranges.py), nvtx_attributed_ops, _nvtx_ranges.  Columns: those of _breakdown_base
-- but `part`, and `bits`.
-- Each launching call's chosen names are gathered into one set of bits (the same name twice sets its bit once),
-- so the calls are grouped by call alone, and joined to the operations one to one: at 10 M kernels, grouping the
-- 19 M (call, name) pairs themselves took most of the query.
WITH chosen AS (  -- the instances of the chosen ranges
    SELECT r.range_id, n.bit
    FROM _nvtx_ranges AS r
    JOIN _breakdown_chosen AS n ON n.part = coalesce(CASE WHEN r.domain IS NULL THEN r.text ELSE r.name END, r.name)
),
calls AS (  -- the launching calls inside a chosen range: the chosen names that hold each, as bits
    SELECT (a.global_pid >> 24) & 16777215 AS pid, a.correlation_id, bit_or(c.bit) AS bits
    FROM nvtx_attributed_ops('process', false, with_graphs := true) AS a
    JOIN chosen AS c ON c.range_id = a.range_id
    GROUP BY ALL
)
SELECT
    o.* EXCLUDE (part),                        -- the operation, as in _breakdown_base
    c.bits                                     -- the chosen names that hold it (_breakdown_chosen.bit)
FROM _breakdown_base AS o
JOIN calls AS c USING (pid, correlation_id)
