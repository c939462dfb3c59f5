-- name: _launch_threads
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_DRIVER, compat.CUPTI_ACTIVITY_KIND_RUNTIME
-- _launch_threads: the thread of each launching API call, keyed by (process, correlation id).
-- Private helper of kernels.
SELECT
    globalTid & -16777216 AS global_pid,       -- globalTid with the thread bits cleared = globalPid
    correlationId AS correlation_id,           -- correlation id of the call
    any_value(globalTid & 16777215) AS tid     -- launching thread
FROM (
    SELECT globalTid, correlationId FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME
    UNION ALL
    SELECT globalTid, correlationId FROM compat.CUPTI_ACTIVITY_KIND_DRIVER
)
WHERE correlationId IS NOT NULL AND correlationId <> 0
GROUP BY ALL
