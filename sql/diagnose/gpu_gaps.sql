-- name: gpu_gaps
-- kind: query
-- params: $rows, $threshold_ns
-- needs: _diag.gaps
-- gpu_gaps: periods where a device of a process runs no GPU operation for longer than a threshold,
-- = `nsys analyze --rule gpu_gaps`. A gap runs from the latest end of the operations started so far to the
-- next start (running max over operations sorted by start, sweep.py; equal to nsys' pairing of sorted ends and
-- starts).
-- Needs: _diag.gaps (nsys_analytics/diagnose/sweep.py, per time window; work 2 = profiling overhead).
-- Params: $threshold_ns: shortest gap reported (exclusive); $rows: row limit (NULL: all).
WITH
    gaps AS (
        SELECT end_ns - start_ns AS duration_ns, start_ns, pid, device, nullif(context, -1) AS idle_context
        FROM _diag.gaps
        WHERE end_ns - start_ns > $threshold_ns
    )
SELECT
    row_number() OVER (ORDER BY duration_ns DESC, start_ns) AS row_num, -- rank, longest first
    duration_ns,            -- idle time (ns)
    start_ns,               -- idle from (ns): end of the last operation before the gap
    pid,                    -- process
    device,                 -- CUDA device id
    idle_context AS context -- context of the operation that ended last before the gap
FROM gaps
ORDER BY row_num
LIMIT $rows
