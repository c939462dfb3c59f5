-- name: timeline_gpu
-- kind: query
-- params: $from_ns, $min_box_ns, $ns_per_px, $to_ns
-- needs: _visual_kernels, _visual_memcpy, _visual_memset, strings
-- timeline_gpu: what the GPU streams ran in a time window, drawn as boxes: one row per kernel, memcpy or memset at
-- least $min_box_ns long (clipped to the window), and one density row per stream and pixel column for the shorter
-- ones, so a million kernels come back as at most a few thousand rows.
-- Needs (temp views of the window's rows that visual/data.py creates): _visual_kernels, _visual_memcpy, _visual_memset,
-- strings. Kernels are coloured afterwards (visual/data.py): the demangled name of each row's longest kernel is
-- classified by the rules file, once per distinct name.
-- Params: $from_ns, $to_ns: the window [from, to); $ns_per_px: nanoseconds per pixel column; $min_box_ns: an
-- operation at least this long (after clipping) is a box of its own.
-- A density row's busy_ns is the summed (clipped) time of its operations: boxes plus bands conserve the window's
-- GPU time exactly (tests/test_visual_timeline.py checks it).
WITH ops AS (
    SELECT deviceId AS device, streamId AS stream, 'kernel' AS kind, rowid AS op_id,
           greatest(start, $from_ns) AS s, least("end", $to_ns) AS e, demangledName AS name_id,
           coalesce(shortName, demangledName) AS label_id, NULL::VARCHAR AS detail,
           graphNodeId IS NOT NULL AS in_graph
    FROM _visual_kernels
    WHERE start < $to_ns AND "end" > $from_ns
    UNION ALL
    SELECT deviceId, streamId, 'memcpy', rowid, greatest(start, $from_ns), least("end", $to_ns), NULL, NULL,
           CASE copyKind WHEN 1 THEN 'HtoD' WHEN 2 THEN 'DtoH' WHEN 8 THEN 'DtoD' WHEN 10 THEN 'PtoP'
               WHEN 9 THEN 'HtoH' ELSE 'other' END, graphNodeId IS NOT NULL
    FROM _visual_memcpy
    WHERE start < $to_ns AND "end" > $from_ns
    UNION ALL
    SELECT deviceId, streamId, 'memset', rowid, greatest(start, $from_ns), least("end", $to_ns), NULL, NULL, NULL,
           graphNodeId IS NOT NULL
    FROM _visual_memset
    WHERE start < $to_ns AND "end" > $from_ns
),
keyed AS (
    SELECT *, e - s >= $min_box_ns AS wide,
           CASE kind WHEN 'kernel' THEN 'kernel' WHEN 'memcpy' THEN 'memcpy ' || detail ELSE 'memset' END AS color_key
    FROM ops
),
grouped AS (
    SELECT
        device, stream, wide,
        min(s) AS s, max(e) AS e, sum(e - s) AS busy, count(*) AS n,
        arg_max(color_key, e - s) AS color_key, arg_max(name_id, e - s) AS name_id,
        any_value(label_id) AS label_id, any_value(kind) AS kind,
        bool_or(in_graph) AS in_graph
    FROM keyed
    GROUP BY device, stream, wide,
             CASE WHEN wide THEN kind || op_id ELSE CAST((s - $from_ns) // $ns_per_px AS VARCHAR) END
)
SELECT
    coalesce(g.device, 0) AS device,           -- CUDA device id
    g.stream,                                  -- CUDA stream id
    CASE WHEN g.wide THEN 'box' ELSE 'band' END AS shape, -- box: one operation; band: a pixel column of short ones
    CASE WHEN g.wide THEN g.s ELSE $from_ns + ((g.s - $from_ns) // $ns_per_px) * $ns_per_px END AS start_ns, -- (ns)
    CASE WHEN g.wide THEN g.e ELSE $from_ns + ((g.s - $from_ns) // $ns_per_px + 1) * $ns_per_px END AS end_ns, -- (ns)
    g.busy AS busy_ns,                         -- summed time of the operations inside the window (ns)
    g.n AS operations,                         -- operations it stands for
    g.color_key,                               -- 'kernel', 'memcpy HtoD', ..., 'memset' (of the longest operation)
    CASE WHEN g.wide THEN coalesce(s.value, CASE g.kind WHEN 'memset' THEN 'memset' ELSE 'memcpy' END) END AS label, -- box label
    g.in_graph,                                -- launched by a CUDA graph
    n.value AS kernel_name                     -- demangled name of the longest kernel (NULL: no kernel)
FROM grouped AS g
LEFT JOIN strings AS s ON s.id = g.label_id AND g.wide
LEFT JOIN strings AS n ON n.id = g.name_id
ORDER BY device, stream, start_ns, shape
