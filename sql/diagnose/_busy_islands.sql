-- _busy_islands: the stretches during which each process/device's GPU was busy (operations merged across
-- streams: a running max of end times over operations sorted by start starts a new island at each gap); as the
-- table macro _diag.busy_islands(kernels_only). Needs: _diag.gpu_ops.
--   kernels_only   true: kernels only; false: every GPU operation but profiler overhead
WITH
    flagged AS (
        SELECT pid, device, start_ns, end_ns,
               CASE WHEN start_ns > max(end_ns) OVER w THEN 1 ELSE 0 END AS new_island
        FROM _diag.gpu_ops
        WHERE CASE WHEN kernels_only THEN op IN ('kernel', 'graph') ELSE op <> 'overhead' END
        WINDOW w AS (PARTITION BY pid, device ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ),
    numbered AS (
        SELECT *, sum(new_island) OVER (PARTITION BY pid, device ORDER BY start_ns ROWS UNBOUNDED PRECEDING) AS island
        FROM flagged
    )
SELECT
    pid,                                            -- process
    device,                                         -- CUDA device id
    min(start_ns) AS start_ns,                      -- island start (ns)
    max(end_ns) AS end_ns                           -- island end (ns)
FROM numbered
GROUP BY pid, device, island
