-- name: kernel_launches
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_DRIVER, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_RUNTIME, compat.StringIds
-- kernel_launches: every kernel of the profile with the time its launching API call started, for placing it in the
-- NVTX range open at its launch (ranks/paths.py), and its name's string id (a straggler's extra kernels by name).
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.StringIds, compat.CUPTI_ACTIVITY_KIND_RUNTIME / _DRIVER (read
-- directly, not through cuda_api: no call names are needed). A kernel whose launch was not traced has a NULL
-- launch_ns (it is still compute or communication time of its GPU).
WITH nccl_names AS (
    SELECT id FROM compat.StringIds WHERE value LIKE 'nccl%'
),
k AS (
    SELECT start, "end", deviceId, streamId, correlationId, (globalPid >> 24) & 16777215 AS pid, demangledName,
           demangledName IN (SELECT id FROM nccl_names) AS is_comm
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
),
calls AS (
    SELECT correlationId, start, (globalTid >> 24) & 16777215 AS pid FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME
    WHERE correlationId IN (SELECT correlationId FROM k)
    UNION ALL
    SELECT correlationId, start, (globalTid >> 24) & 16777215 AS pid FROM compat.CUPTI_ACTIVITY_KIND_DRIVER
    WHERE correlationId IN (SELECT correlationId FROM k)
)
SELECT
    k.start AS start_ns,                       -- GPU start (ns)
    k."end" AS end_ns,                         -- GPU end (ns)
    k.deviceId AS device,                      -- CUDA device id
    k.streamId AS stream,                      -- CUDA stream id
    k.pid,                                     -- process
    k.is_comm,                                 -- an NCCL kernel
    k.demangledName AS name_id,                -- strings.id of the kernel's demangled name
    c.start AS launch_ns                       -- start of the API call that launched it (ns; NULL: not traced)
FROM k
LEFT JOIN calls AS c ON c.correlationId = k.correlationId AND c.pid = k.pid
