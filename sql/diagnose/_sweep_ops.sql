-- name: _sweep_ops
-- kind: query
-- params: $hi, $lo
-- needs: _diag.gpu_ops
-- _sweep_ops: the GPU operations of the window that start in a time slice, the input of the one pass
-- (nsys_analytics/diagnose/sweep.py) that finds the idle gaps and busy islands; unsorted (sweep.py sorts them by
-- process/device and start with numpy). NULL context and operation (profiling overhead) come as -1.
-- Params: $lo, $hi: the operations starting in [lo, hi).
SELECT
    pid,                                            -- process
    device,                                         -- CUDA device id
    start_ns,                                       -- operation start (ns)
    end_ns,                                         -- operation end (ns)
    coalesce(context, -1) AS context,               -- CUDA context id (-1: none)
    coalesce(op_key, -1) AS op_key,                 -- the operation (_window_ops; -1: profiling overhead)
    work                                            -- 1 kernel or graph, 0 copy or memset, 2 profiling overhead
FROM _diag.gpu_ops
WHERE start_ns >= $lo AND start_ns < $hi
