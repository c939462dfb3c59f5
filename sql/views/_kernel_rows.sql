-- name: _kernel_rows
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, strings
-- _kernel_rows: kernels without the launching thread (see kernels); reports that need no launch thread
-- read this one, which spares them a join with every CUDA API call.
SELECT
    k.start AS start_ns,                       -- GPU start time (ns, profile clock)
    k."end" AS end_ns,                         -- GPU end time (ns)
    k."end" - k.start AS duration_ns,          -- execution time on the GPU (ns)
    k.deviceId AS device,                      -- CUDA device id
    k.contextId AS context,                    -- CUDA context id
    k.streamId AS stream,                      -- CUDA stream id
    (k.globalPid >> 24) & 16777215 AS pid,     -- process that launched the kernel
    k.correlationId AS correlation_id,         -- links to cuda_api.correlation_id
    dn.value AS name,                          -- demangled name (nsys' default kernel name)
    sn.value AS short_name,                    -- base name without template and arguments (nsys :base)
    mn.value AS mangled_name,                  -- mangled name (NULL before nsys 2021.x)
    k.gridX AS grid_x,                         -- grid size in x (blocks)
    k.gridY AS grid_y,                         -- grid size in y
    k.gridZ AS grid_z,                         -- grid size in z
    k.blockX AS block_x,                       -- block size in x (threads)
    k.blockY AS block_y,                       -- block size in y
    k.blockZ AS block_z,                       -- block size in z
    k.registersPerThread AS registers_per_thread, -- registers per thread
    k.staticSharedMemory AS static_shared_bytes,  -- static shared memory per block (bytes)
    k.dynamicSharedMemory AS dynamic_shared_bytes, -- dynamic shared memory per block (bytes)
    k.localMemoryTotal AS local_memory_bytes,  -- local memory in total (bytes)
    k.graphNodeId AS graph_node_id,            -- CUDA graph node id, when launched by a graph
    k.graphId AS graph_id,                     -- CUDA graph id (nsys 2025.5+)
    k.launchType AS launch_type,               -- 0 regular, 1 cooperative single device, 2 multi device
    k.globalPid AS global_pid,                 -- nsys' global process id
    k.demangledName AS name_id,                -- strings.id of name
    k.shortName AS short_name_id,              -- strings.id of short_name
    k.mangledName AS mangled_name_id           -- strings.id of mangled_name
FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
LEFT JOIN strings AS dn ON dn.id = k.demangledName
LEFT JOIN strings AS sn ON sn.id = k.shortName
LEFT JOIN strings AS mn ON mn.id = k.mangledName
