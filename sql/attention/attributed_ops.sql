-- name: attributed_ops
-- kind: query
-- params: $attribution, $patterns, $table
-- needs: _nvtx_ranges, _op_ranges
-- attributed_ops: the NVTX attribution (_op_ranges) of mode $attribution in the ranges that any of $patterns names (text,
-- full name or a glob over either), stored as the temp table $table with the columns the range queries read
-- (kernel_names, attention_pieces and range_gpu_times read it as their ops parameter). `report` makes it once
-- per profile so that its sections do not each attribute every GPU operation again (docs/attention.md).
-- Parameters: $table (a name); $attribution ('thread' | 'process' | 'gpu', see
-- kernel_ranges); $patterns (a list of range names or globs).
CREATE OR REPLACE TEMP TABLE $table AS
WITH named AS (
    SELECT DISTINCT r.range_id
    FROM _nvtx_ranges AS r
    JOIN unnest($patterns) AS p(pattern)
      ON r.text = p.pattern OR r.name = p.pattern OR r.text GLOB p.pattern OR r.name GLOB p.pattern
)
SELECT
    o.attribution,                             -- $attribution
    o.kind,                                    -- 'kernel', 'memcpy', 'memset' or 'graph'
    o.op_id,                                   -- row id in the operation's nsys table
    o.range_id,                                -- a named range it belongs to (one row per range)
    o.start_ns,                                -- GPU start (ns)
    o.end_ns,                                  -- GPU end (ns)
    o.duration_ns,                             -- GPU duration (ns)
    o.name_id                                  -- kernels: strings.id of the demangled name
FROM _op_ranges AS o
WHERE o.attribution = $attribution AND o.range_id IN (SELECT range_id FROM named)
