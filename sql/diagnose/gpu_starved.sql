-- gpu_starved: idle gaps of each process/device (no GPU operation on any stream) of at least $min_gap_ns that
-- end with a kernel, split by when that kernel's launch call started: after the GPU went idle (`late`: the
-- CPU had not asked for work yet, the GPU was starved) or before (`pending`: the work was queued and waited
-- for something else). Gaps whose call is not traced count as neither.
-- Needs: _diag.gaps (sweep.py: gaps before each operation, profiling overhead included, work 2), cuda_api.
-- Params: $min_gap_ns: shortest idle gap considered (ns).
WITH
    gaps AS (
        SELECT pid, device, start_ns AS idle_from_ns, end_ns AS start_ns, nullif(correlation_id, -1) AS correlation_id
        FROM _diag.gaps
        WHERE work <> 2 AND end_ns - start_ns >= $min_gap_ns
    )
SELECT
    g.pid,                                   -- process
    g.device,                                -- CUDA device id
    g.idle_from_ns AS start_ns,              -- gap start: the GPU went idle (ns)
    g.start_ns AS end_ns,                    -- gap end: the next kernel started (ns)
    g.start_ns - g.idle_from_ns AS gap_ns,   -- idle time (ns)
    a.start_ns AS launch_start_ns,           -- start of the call that issued the next operation (ns; NULL: not traced)
    a.start_ns > g.idle_from_ns AS late      -- the call started after the GPU went idle
FROM gaps AS g
LEFT JOIN cuda_api AS a ON a.correlation_id = g.correlation_id AND a.pid = g.pid
ORDER BY gap_ns DESC, start_ns
