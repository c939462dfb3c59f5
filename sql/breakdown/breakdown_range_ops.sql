-- name: breakdown_range_ops
-- kind: query
-- params: $attribution, $device, $end_ns, $exclude_range_name, $match, $name_kind, $pid, $range_name, $start_ns, $stream
-- needs: _breakdown_base, _breakdown_chosen, _nvtx_ranges, _range_keys, kernels_in_range, nvtx_attributed_ops, shown_name_id, strings
-- breakdown_range_ops: the operations of _breakdown_base (sql/categories/breakdown_ops.sql) once for each chosen NVTX
-- range name that holds them, by the process rule of nvtx_attributed_ops: the CUDA API call that launched it ran
-- inside an instance's window, on any thread of the same process (backward kernels launched by autograd's own thread
-- land in `backward`). breakdown/ranges.py creates it as the temp view _breakdown_ops, which the categories' queries
-- group (breakdown_groups.sql, breakdown_by_name_busy.sql).
-- Needs: _breakdown_base, _breakdown_chosen (the chosen names, `part`, loaded by breakdown/ranges.py),
-- nvtx_attributed_ops, _nvtx_ranges, _range_keys, and for the filters kernels_in_range and strings.
-- Its columns are _breakdown_base's, with `part` the range name.
-- Parameters: the kernel filters of breakdown_ops.sql, the same values.
-- The columns come with the attributed rows, so the kernels are never joined back to their table (at 50 M kernels,
-- that join of 53 M operations to their calls went out of core: 22 of 29 s). Only memcpy, memset and graph
-- executions, few, are joined to _breakdown_base, for their labels and filters.
WITH chosen AS (  -- the instances of the chosen names
    SELECT r.range_id, n.part
    FROM _nvtx_ranges AS r
    JOIN _breakdown_chosen AS n ON n.part = coalesce(CASE WHEN r.domain IS NULL THEN r.text ELSE r.name END, r.name)
),
shadowed AS (  -- instances that start inside an earlier one of the same name and process (ordered by start, then
               -- id), with the latest end among those earlier ones. An operation in both is counted in the
               -- earlier alone: it is dropped here when its call ends by that end (the earlier instance, having
               -- started before the call, then holds it too). No pairs of instances are formed.
    SELECT range_id, prior_end_ns
    FROM (
        SELECT k.range_id, k.start_ns, max(k.end_ns) OVER (
            PARTITION BY k.key, c.part ORDER BY k.start_ns, k.range_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prior_end_ns
        FROM _range_keys AS k
        JOIN chosen AS c USING (range_id)
        WHERE k.attribution = 'process'
    )
    WHERE prior_end_ns >= start_ns
),
others AS (  -- memcpy, memset and graph executions that pass the filters, with their labels
    SELECT kind, op_id, label, rule FROM _breakdown_base WHERE kind <> 'kernel'
),
held AS (  -- each operation once per instance of a chosen name that holds it; kernels and the others apart, each
           -- attributed alone (nvtx_attributed_ops reads only the kinds asked for), so that only the others meet
           -- their labels: a join of every kernel to them took 16 of 24 s at 50 M kernels
    SELECT *
    FROM (
        SELECT a.*, c.part, shown_name_id($name_kind, a.name_id, a.short_name_id, a.mangled_name_id) AS label_id,
            NULL::VARCHAR AS label, NULL::VARCHAR AS rule
        FROM nvtx_attributed_ops('process', false, with_graphs := true) AS a
        JOIN chosen AS c USING (range_id)
        WHERE a.kind = 'kernel'
    ) AS k
    -- the kernel filters of breakdown_ops.sql, on the attributed rows' own columns: a check of each kernel against
    -- _breakdown_base took 18 of 27 s at 50 M kernels
    WHERE ($device IS NULL OR k.device = $device)
      AND ($stream IS NULL OR k.stream = $stream)
      AND ($pid IS NULL OR (k.global_pid >> 24) & 16777215 = $pid)
      AND ($start_ns IS NULL OR k.start_ns >= $start_ns)
      AND ($end_ns IS NULL OR k.start_ns < $end_ns)
      AND ($match IS NULL OR k.label_id IN (SELECT id FROM strings WHERE regexp_matches(value, $match)))
      AND ($range_name IS NULL
           OR k.op_id IN (SELECT kernel_id FROM kernels_in_range($range_name, $attribution)))
      AND ($exclude_range_name IS NULL
           OR k.op_id NOT IN (SELECT kernel_id FROM kernels_in_range($exclude_range_name, $attribution)))
    UNION ALL
    SELECT a.*, c.part, NULL, o.label, o.rule
    FROM nvtx_attributed_ops('process', false, with_graphs := true) AS a
    JOIN chosen AS c USING (range_id)
    JOIN others AS o ON o.kind = a.kind AND o.op_id = a.op_id
    WHERE a.kind <> 'kernel'
)
SELECT
    h.kind,                                    -- 'kernel', 'graph', 'memcpy' or 'memset'
    h.op_id,                                   -- row id in the operation's nsys table
    h.start_ns,                                -- GPU start (ns)
    h.end_ns,                                  -- GPU end (ns)
    coalesce(h.device, 0) AS device,           -- CUDA device id
    (h.global_pid >> 24) & 16777215 AS pid,    -- process
    h.correlation_id,                          -- links to the launching CUDA API call
    h.name_id,                                 -- strings.id of the demangled kernel name; NULL for the others
    h.label_id,                                -- strings.id of the name shown ($name_kind); NULL for the others
    h.label,                                   -- '[CUDA graph N]', the memcpy/memset label; NULL for kernels
    h.rule,                                    -- 'memcpy' or 'memset'; NULL for kernels and graphs
    h.part                                     -- the chosen name (_breakdown_chosen.part)
FROM held AS h
LEFT JOIN shadowed AS s ON s.range_id = h.range_id
WHERE s.prior_end_ns IS NULL OR s.prior_end_ns < greatest(h.launch_start_ns, h.launch_end_ns)
