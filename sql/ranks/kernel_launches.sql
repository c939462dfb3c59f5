-- kernel_launches: every kernel of the profile with the time its launching API call started, for placing it in the
-- NVTX range open at its launch (ranks/paths.py) and for the compute time that NCCL kernels ran beside.
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.StringIds, cuda_api. A kernel whose launch was not traced has
-- a NULL launch_ns (it is still compute or communication time of its GPU).
WITH nccl_names AS (
    SELECT id FROM compat.StringIds WHERE value LIKE 'nccl%'
),
k AS (
    SELECT start, "end", deviceId, streamId, correlationId, (globalPid >> 24) & 16777215 AS pid,
           demangledName IN (SELECT id FROM nccl_names) AS is_comm
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
)
SELECT
    k.start AS start_ns,                       -- GPU start (ns)
    k."end" AS end_ns,                         -- GPU end (ns)
    k.deviceId AS device,                      -- CUDA device id
    k.streamId AS stream,                      -- CUDA stream id
    k.pid,                                     -- process
    k.is_comm,                                 -- an NCCL kernel
    a.start_ns AS launch_ns                    -- start of the API call that launched it (ns; NULL: not traced)
FROM k
LEFT JOIN cuda_api AS a ON a.correlation_id = k.correlationId AND a.pid = k.pid
ORDER BY k.start, k.streamId
