-- name: cuda_api
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_DRIVER, compat.CUPTI_ACTIVITY_KIND_RUNTIME, strings
-- cuda_api: one row per traced CUDA runtime or driver API call on a CPU thread.
SELECT
    c.start AS start_ns,                       -- call start (ns, CPU clock of the profile)
    c."end" AS end_ns,                         -- call end (ns)
    c."end" - c.start AS duration_ns,          -- call duration (ns)
    s.value AS name,                           -- as exported: cudaLaunchKernel_v7000 (nsys' reports drop _vNNNN)
    c.api AS api,                              -- 'runtime' or 'driver'
    (c.globalTid >> 24) & 16777215 AS pid,     -- calling process
    c.globalTid & 16777215 AS tid,             -- calling thread
    c.correlationId AS correlation_id,         -- links to kernels/memcpy/memset.correlation_id
    c.returnValue AS return_value,             -- CUDA result code (0 = success)
    c.globalTid AS global_tid                  -- nsys' global thread id
FROM (
    SELECT *, 'runtime' AS api FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME
    UNION ALL
    SELECT *, 'driver' AS api FROM compat.CUPTI_ACTIVITY_KIND_DRIVER
) AS c
LEFT JOIN strings AS s ON s.id = c.nameId
