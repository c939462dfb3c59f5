-- name: _spans
-- kind: query
-- params: none
-- needs: _diag.window_ops
-- _spans: each process/device's GPU span, first start to last end of its GPU operations in the window, computed
-- once as the table _diag.spans (the chunk grid and the profiling overhead kept are cut from it).
SELECT
    pid,                                            -- process
    device,                                         -- CUDA device id
    min(start_ns) AS start_ns,                      -- first operation start (ns)
    max(end_ns) AS end_ns,                          -- last operation end (ns)
    any_value(context) AS context,                  -- a CUDA context id of the pid/device (nsys prints one)
    count(*) AS ops                                 -- its operations (the pass cuts its time slices by them)
FROM _diag.window_ops
GROUP BY pid, device
