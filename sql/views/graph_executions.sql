-- name: graph_executions
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_GRAPH_TRACE
-- graph_executions: one row per execution of a whole CUDA graph on a GPU. nsys records these, and not the graph's
-- kernels, with `nsys profile --cuda-graph-trace=graph` (its default); traced per node (`=node`), a graph's kernels
-- are in `kernels` (with graph_node_id) and this view is empty. nsys' own summaries (cuda_gpu_kern_sum, nvtx_kern_sum,
-- nvtx_gpu_proj_sum) leave these executions out.
SELECT
    g.start AS start_ns,                       -- GPU start of the graph's first work (ns, profile clock)
    g."end" AS end_ns,                         -- GPU end of its last work (ns)
    g."end" - g.start AS duration_ns,          -- execution time on the GPU (ns)
    g.deviceId AS device,                      -- CUDA device id
    g.contextId AS context,                    -- CUDA context id
    g.streamId AS stream,                      -- CUDA stream id it was launched into
    (g.globalPid >> 24) & 16777215 AS pid,     -- process
    g.correlationId AS correlation_id,         -- links to the cudaGraphLaunch call in cuda_api
    g.graphId AS graph_id,                     -- the CUDA graph
    g.graphExecId AS graph_exec_id,            -- its executable instance
    '[CUDA graph ' || coalesce(g.graphId, g.graphExecId) || ']' AS name, -- how reports name it
    g.globalPid AS global_pid,                 -- nsys' global process id
    g.rowid AS op_id                           -- row id in nsys' table
FROM compat.CUPTI_ACTIVITY_KIND_GRAPH_TRACE AS g
