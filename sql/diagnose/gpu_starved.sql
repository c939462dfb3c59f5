-- name: gpu_starved
-- kind: query
-- params: $min_gap_ns
-- needs: _diag.gaps, _range_ops
-- gpu_starved: idle gaps of each process/device (no GPU operation on any stream) of at least $min_gap_ns that
-- end with a kernel, split by when that kernel's launch call started: after the GPU went idle (`late`: the
-- CPU had not asked for work yet, the GPU was starved) or before (`pending`: the work was queued and waited
-- for something else). Gaps whose call is not traced count as neither.
-- Needs: _diag.gaps (sweep.py: gaps before each operation, profiling overhead included, work 2), _range_ops.
-- Params: $min_gap_ns: shortest idle gap considered (ns). One row per process/device: the gaps are summed here
-- (there can be one per operation), not in Python.
WITH
    gaps AS (
        SELECT pid, device, start_ns AS idle_from_ns, end_ns AS start_ns, nullif(correlation_id, -1) AS correlation_id
        FROM _diag.gaps
        WHERE work <> 2 AND end_ns - start_ns >= $min_gap_ns
    ),
    calls AS (  -- the calls that issued a gap's operation (same correlation id, same process): read from the
                -- operations' launching calls in _range_ops (stored by the cache: half the rows of every CUDA call),
                -- a semi-join first, cheaper than probing every operation against the gaps in the join below;
                -- DISTINCT: the kernels of one graph launch share its call
        SELECT DISTINCT correlation_id, (global_pid >> 24) & 16777215 AS pid, launch_start_ns AS start_ns
        FROM _range_ops
        WHERE correlation_id IN (SELECT correlation_id FROM gaps) AND launch_start_ns IS NOT NULL
    ),
    classified AS (
        SELECT g.pid, g.device, g.idle_from_ns, g.start_ns, g.start_ns - g.idle_from_ns AS gap_ns,
               a.start_ns > g.idle_from_ns AS late  -- NULL: the call is not traced
        FROM gaps AS g
        LEFT JOIN calls AS a ON a.correlation_id = g.correlation_id AND a.pid = g.pid
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
