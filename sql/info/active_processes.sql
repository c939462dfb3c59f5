-- name: active_processes
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_DRIVER, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_RUNTIME, nvtx_events, processes, threads
-- active_processes: the processes that ran CUDA work or NVTX ranges, with their names and activity.
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_RUNTIME, compat.CUPTI_ACTIVITY_KIND_DRIVER,
-- nvtx_events, processes, threads. Kernels and API calls are counted on their tables (the pid as the kernels and
-- cuda_api views decode it), without the views' name and launch-thread joins.
WITH activity AS (  -- counted per table first: the union and the joins see one row per process and table
    SELECT (globalPid >> 24) & 16777215 AS pid, count(*) AS kernels, 0 AS calls, 0 AS ranges
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1
    UNION ALL
    SELECT (globalTid >> 24) & 16777215, 0, count(*), 0 FROM (
        SELECT globalTid FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME
        UNION ALL SELECT globalTid FROM compat.CUPTI_ACTIVITY_KIND_DRIVER
    ) GROUP BY 1
    UNION ALL SELECT pid, 0, 0, count(*) FROM nvtx_events GROUP BY pid
)
SELECT
    a.pid,                                     -- process id
    coalesce(any_value(p.name), any_value(t.name)) AS name, -- process name (or its main thread's)
    sum(a.kernels) AS kernels,                 -- kernels it launched
    sum(a.calls) AS cuda_api_calls,            -- CUDA API calls it made
    sum(a.ranges) AS nvtx_events               -- NVTX ranges and marks it recorded
FROM activity AS a
LEFT JOIN processes AS p ON p.pid = a.pid
LEFT JOIN threads AS t ON t.pid = a.pid AND t.tid = a.pid
GROUP BY a.pid
ORDER BY a.pid
