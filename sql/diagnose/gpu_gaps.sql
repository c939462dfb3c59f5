-- gpu_gaps: periods where a device of a process runs no GPU operation for longer than a threshold,
-- = `nsys analyze --rule gpu_gaps`. A gap runs from the latest end of the operations started so far to the
-- next start (running max over operations sorted by start; equal to nsys' pairing of sorted ends and starts).
-- Needs: _diag.gpu_ops (sql/diagnose/_gpu_ops.sql, materialized per time window).
-- Params: $threshold_ns: shortest gap reported (exclusive); $rows: row limit (NULL: all).
WITH
    ordered AS (
        SELECT
            start_ns, pid, device,
            max(end_ns) OVER w AS idle_from_ns,
            arg_max(context, end_ns) OVER w AS idle_context
        FROM _diag.gpu_ops
        WINDOW w AS (PARTITION BY pid, device ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ),
    gaps AS (
        SELECT start_ns - idle_from_ns AS duration_ns, idle_from_ns AS start_ns, pid, device, idle_context
        FROM ordered
        WHERE start_ns - idle_from_ns > $threshold_ns
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
