-- name: nccl_ops
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, cuda_api, nvtx_events, strings
-- nccl_ops: NCCL collectives and point-to-point operations as they ran on the GPU, one row per NCCL kernel, with
-- the NVTX range of the `NCCL` domain (NCCL's own annotation) that launched it where the profile has one, and the
-- message size that range's payload gives (NCCL 2.19+ records "Message size [bytes]"; the SQLite export holds
-- payloads only when made with `nsys export --include-json true`, else the size is unknown: NULL). (How
-- long each ran beside compute kernels is added by ranks/data.py from the unions of compute kernels.)
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, strings, cuda_api, nvtx_events (the kernels view's launch-thread join
-- is not needed: compat and names only). Kernel names: ncclDevKernel_AllReduce_Sum_f32_RING_LL (NCCL 2.19+),
-- ncclKernel_AllReduce_RING_LL_Sum_float (2.x), ncclAllReduceRingLLKernel_sum_f32 (older).
WITH nccl_names AS (
    SELECT id, value FROM strings WHERE value LIKE 'nccl%'
),
k AS (
    SELECT kk.start AS start_ns, kk."end" AS end_ns, kk."end" - kk.start AS duration_ns, kk.deviceId AS device,
           kk.streamId AS stream, (kk.globalPid >> 24) & 16777215 AS pid, kk.correlationId AS correlation_id,
           n.value AS name,
           coalesce(nullif(regexp_extract(n.value, '^nccl(?:Dev)?Kernel_([A-Za-z]+)', 1), ''),
                    regexp_extract(n.value, '^nccl([A-Z][A-Za-z]+?)(?:Ring|Tree|CollNet|NVLS)', 1)) AS op_raw
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS kk
    JOIN nccl_names AS n ON n.id = kk.demangledName
),
launch AS (
    SELECT k.correlation_id, k.pid, a.start_ns AS launch_ns, a.tid
    FROM k JOIN cuda_api AS a ON a.correlation_id = k.correlation_id AND a.pid = k.pid
),
nccl_ranges AS (
    SELECT start_ns, end_ns, name, pid, tid,
           TRY_CAST(json_extract_string(payload_json, '$."Message size [bytes]"') AS BIGINT) AS bytes
    FROM nvtx_events
    WHERE domain = 'NCCL' AND end_ns IS NOT NULL
),
annotated AS (                                 -- the innermost NCCL range open at the launch (as-of join)
    SELECT l.correlation_id, l.pid, r.name AS range_name, r.bytes
    FROM launch AS l
    ASOF JOIN nccl_ranges AS r ON r.pid = l.pid AND r.tid = l.tid AND l.launch_ns >= r.start_ns
    WHERE l.launch_ns < r.end_ns
)
SELECT
    k.start_ns,                                -- GPU start (ns, the profile's clock)
    k.end_ns,                                  -- GPU end (ns)
    k.duration_ns,                             -- GPU duration (ns)
    CASE WHEN k.op_raw = '' OR k.op_raw IS NULL THEN 'Unknown' ELSE k.op_raw END AS op, -- AllReduce, AllGather, ReduceScatter, Broadcast, SendRecv, ...
    k.device,                                  -- CUDA device id
    k.stream,                                  -- CUDA stream id
    k.pid,                                     -- process
    a.range_name AS nvtx_range,                -- NCCL NVTX range that launched it (NULL: none traced)
    a.bytes,                                   -- message size of that NCCL call (bytes; NULL: unknown, see above)
    k.name                                     -- kernel name
FROM k
LEFT JOIN annotated AS a ON a.correlation_id = k.correlation_id AND a.pid = k.pid
ORDER BY k.start_ns, k.stream
