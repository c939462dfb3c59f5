-- name: step_ops
-- kind: query
-- params: $global_pid
-- needs: _range_ops
-- step_ops: the GPU operations of one process (kernels, memory copies, memsets, whole graph executions) whose
-- launching CUDA call is traced, with that call's start: what catalog/steps.py places in the process's step ranges
-- (process attribution, docs/nvtx.md) to sum each step's kernel time and GPU busy time. Unordered (numpy sorts).
-- Parameters: $global_pid (nsys' global process id).
SELECT
    launch_start_ns,                           -- start of the launching call (ns)
    start_ns,                                  -- GPU start (ns)
    end_ns,                                    -- GPU end (ns)
    kind = 'kernel' AS is_kernel               -- a kernel (else a copy, memset or graph)
FROM _range_ops
WHERE global_pid = $global_pid AND launch_start_ns IS NOT NULL
