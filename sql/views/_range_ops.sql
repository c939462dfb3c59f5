-- name: _range_ops
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_DRIVER, compat.CUPTI_ACTIVITY_KIND_GRAPH_TRACE, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_MEMSET, compat.CUPTI_ACTIVITY_KIND_RUNTIME
-- _range_ops: GPU operations (kernels, memory copies, memsets, whole CUDA graph executions) with the CUDA API call
-- that launched them, the input of NVTX range attribution. Matched as nsys matches them: same correlation id, same
-- process. Graph executions (kind 'graph', see graph_executions) are in nsys' NVTX reports only with --graphs.
-- Filter on kind:
-- the other kinds are then never read.
WITH ops AS (
    SELECT 'kernel' AS kind, rowid, start, "end", globalPid, correlationId, deviceId, streamId,
           demangledName, shortName, mangledName
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL
    SELECT 'memcpy', rowid, start, "end", globalPid, correlationId, deviceId, streamId, NULL, NULL, NULL
    FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY
    UNION ALL
    SELECT 'memset', rowid, start, "end", globalPid, correlationId, deviceId, streamId, NULL, NULL, NULL
    FROM compat.CUPTI_ACTIVITY_KIND_MEMSET
    UNION ALL
    SELECT 'graph', rowid, start, "end", globalPid, correlationId, deviceId, streamId, NULL, NULL, NULL
    FROM compat.CUPTI_ACTIVITY_KIND_GRAPH_TRACE
),
calls AS (
    SELECT globalTid, correlationId, start, "end", nameId FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME
    UNION ALL
    SELECT globalTid, correlationId, start, "end", nameId FROM compat.CUPTI_ACTIVITY_KIND_DRIVER
)
SELECT
    o.kind,                                    -- 'kernel', 'memcpy', 'memset' or 'graph'
    o.rowid AS op_id,                          -- row id in the operation's nsys table
    o.start AS start_ns,                       -- GPU start (ns)
    o."end" AS end_ns,                         -- GPU end (ns)
    o."end" - o.start AS duration_ns,          -- GPU duration (ns)
    o.globalPid AS global_pid,                 -- nsys' global process id
    o.correlationId AS correlation_id,         -- links to the launching API call
    o.deviceId AS device,                      -- CUDA device id
    o.streamId AS stream,                      -- CUDA stream id
    c.globalTid AS launch_global_tid,          -- thread of the launching API call (NULL if not traced)
    c.start AS launch_start_ns,                -- launching call start (ns)
    c."end" AS launch_end_ns,                  -- launching call end (ns)
    o.demangledName AS name_id,                -- kernels: strings.id of the demangled name
    o.shortName AS short_name_id,              -- kernels: strings.id of the base name
    o.mangledName AS mangled_name_id,          -- kernels: strings.id of the mangled name
    c.nameId AS launch_name_id                 -- strings.id of the launching call's API function (diagnose's
                                               -- launch_bound tells launches from graph launches by it)
FROM ops AS o
LEFT JOIN calls AS c ON c.correlationId = o.correlationId AND c.globalTid & -16777216 = o.globalPid
