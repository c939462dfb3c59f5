-- name: kernels_in
-- kind: table_macro
-- params: name_kind, want_device, want_stream, want_pid, from_ns, to_ns, name_regex, range_name := NULL, exclude_range_name := NULL, attribution := 'thread', with_graphs := false
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, graph_executions, kernels_in_range, shown_name_id, strings
-- kernels_in(name_kind, want_device, want_stream, want_pid, from_ns, to_ns, name_regex): table macro, the
-- kernels that pass the common report filters, with the name the user chose. NULL arguments filter nothing.
-- Reads the compat table directly and joins only the chosen name: the summaries stay one scan and one join.
--   name_kind    'demangled' | 'short' | 'mangled' (mangled falls back to demangled when absent, as nsys does)
--   want_device, want_stream, want_pid   exact matches
--   from_ns, to_ns                       keep kernels that start in [from_ns, to_ns)
--   name_regex                           regular expression searched in the chosen name
--   range_name, exclude_range_name       keep kernels in / not in an NVTX range of that name (kernels_in_range)
--   attribution                          how kernels belong to ranges: 'thread' (default), 'process', 'gpu'
--   with_graphs                          true: whole CUDA graph executions too, one name '[CUDA graph N]' per
--                                        graph (graph_executions; nsys leaves them out); false (default): as nsys
WITH chosen AS (
    SELECT
        k.start AS start_ns,
        k."end" - k.start AS duration_ns,
        k.gridX AS grid_x, k.gridY AS grid_y, k.gridZ AS grid_z,
        k.blockX AS block_x, k.blockY AS block_y, k.blockZ AS block_z,
        shown_name_id(name_kind, k.demangledName, k.shortName, k.mangledName) AS group_name_id,
        NULL::VARCHAR AS graph_name
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    WHERE (want_device IS NULL OR k.deviceId = want_device)
      AND (want_stream IS NULL OR k.streamId = want_stream)
      AND (want_pid IS NULL OR (k.globalPid >> 24) & 16777215 = want_pid)
      AND (from_ns IS NULL OR k.start >= from_ns)
      AND (to_ns IS NULL OR k.start < to_ns)
      AND (range_name IS NULL OR k.rowid IN (SELECT kernel_id FROM kernels_in_range(range_name, attribution)))
      AND (exclude_range_name IS NULL
           OR k.rowid NOT IN (SELECT kernel_id FROM kernels_in_range(exclude_range_name, attribution)))
    UNION ALL
    SELECT g.start_ns, g.duration_ns, NULL, NULL, NULL, NULL, NULL, NULL,
        -1 - coalesce(g.graph_id, g.graph_exec_id),  -- below every string id: a group of its own per graph
        g.name
    FROM graph_executions AS g
    WHERE with_graphs AND range_name IS NULL AND exclude_range_name IS NULL  -- range filters place kernels only
      AND (want_device IS NULL OR g.device = want_device)
      AND (want_stream IS NULL OR g.stream = want_stream)
      AND (want_pid IS NULL OR g.pid = want_pid)
      AND (from_ns IS NULL OR g.start_ns >= from_ns)
      AND (to_ns IS NULL OR g.start_ns < to_ns)
)
SELECT
    c.start_ns,                                -- GPU start (ns)
    c.duration_ns,                             -- GPU duration (ns)
    c.grid_x,                                  -- grid size (NULL for a graph execution)
    c.grid_y,                                  -- grid size, y
    c.grid_z,                                  -- grid size, z
    c.block_x,                                 -- block size (NULL for a graph execution)
    c.block_y,                                 -- block size, y
    c.block_z,                                 -- block size, z
    c.group_name_id,                           -- strings.id of the chosen name; -1 - graph id for a graph
    coalesce(s.value, c.graph_name) AS group_name -- the chosen name
FROM chosen AS c
LEFT JOIN strings AS s ON s.id = c.group_name_id
WHERE name_regex IS NULL OR regexp_matches(coalesce(s.value, c.graph_name), name_regex)
