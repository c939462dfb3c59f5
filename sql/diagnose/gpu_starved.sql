-- name: gpu_starved
-- kind: query
-- params: $hi, $lo, $min_gap_ns
-- needs: _diag.gaps, _range_ops
-- gpu_starved: idle gaps of each process/device (no GPU operation on any stream) of at least $min_gap_ns that
-- end with a kernel, split by when that kernel's launch call started: after the GPU went idle (`late`: the
-- CPU had not asked for work yet, the GPU was starved) or before (`pending`: the work was queued and waited
-- for something else). Gaps whose call is not traced count as neither.
-- Needs: _diag.gaps (sweep.py: gaps before each operation, with its op_key; profiling overhead included, work 2),
-- _range_ops.
-- Params: $min_gap_ns: shortest idle gap considered (ns). $lo, $hi: only the gaps that end in [lo, hi), joined to
-- the operations that start in it (an operation starts where the gap before it ends); NULL: every gap. starved.py
-- joins a large table's gaps a slice of time at a time: at 50 M kernels the join of all 11.9 M gaps went out of
-- core in diagnose's 700 MB pool (6.0 s; 3.5 s in four slices, each reading only its slice's part of the stored
-- _range_ops). One row per process/device: the gaps are summed here (there can be one per operation), not in
-- Python.
WITH
    gaps AS (
        SELECT pid, device, start_ns AS idle_from_ns, end_ns AS start_ns, nullif(op_key, -1) AS op_key
        FROM _diag.gaps
        WHERE work <> 2 AND end_ns - start_ns >= $min_gap_ns
          AND ($lo IS NULL OR end_ns >= $lo) AND ($hi IS NULL OR end_ns < $hi)
    ),
    ops AS (
        SELECT kind, op_id, launch_start_ns
        FROM _range_ops
        WHERE ($lo IS NULL OR start_ns >= $lo) AND ($hi IS NULL OR start_ns < $hi)
    ),
    classified AS (  -- each gap's operation found in _range_ops (stored by the cache) by its row id and kind (the
                     -- codes of op_key, _window_ops.sql), one to one, with its launching call's start (same
                     -- correlation id, same process). One integer key: at 20 M kernels, joining on the row id and
                     -- the kind's text took 2.1 s of CPU, this 1.2 s
        SELECT g.pid, g.device, g.idle_from_ns, g.start_ns, g.start_ns - g.idle_from_ns AS gap_ns,
               o.launch_start_ns > g.idle_from_ns AS late  -- NULL: the call is not traced
        FROM gaps AS g
        LEFT JOIN ops AS o
            ON g.op_key = o.op_id * 4 + CASE o.kind WHEN 'kernel' THEN 0 WHEN 'memcpy' THEN 1 WHEN 'memset' THEN 2
                                                    ELSE 3 END
    )
SELECT
    pid,                                                    -- process
    device,                                                 -- CUDA device id
    coalesce(sum(gap_ns) FILTER (WHERE late), 0) AS starved_ns, -- idle time before a call made late (ns)
    count(*) FILTER (WHERE late) AS starved_gaps,           -- those gaps
    coalesce(sum(gap_ns) FILTER (WHERE NOT late), 0) AS pending_ns, -- idle time with the call already made (ns)
    max_by([idle_from_ns, start_ns], [gap_ns, -idle_from_ns], 3) FILTER (WHERE late) AS worst
                                                            -- the three longest starved gaps (the earliest of equal
                                                            -- ones): [start, end] (ns)
FROM classified
GROUP BY pid, device
ORDER BY pid, device
