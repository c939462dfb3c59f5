-- name: kernels
-- kind: view
-- params: none
-- needs: _kernel_rows, _launch_threads
-- kernels: one row per CUDA kernel execution on a GPU.
-- launch_tid comes from the CUDA API call with the same correlation id
-- in the same process.
-- Extends: _kernel_rows
SELECT
    k.*,
    l.tid AS launch_tid                        -- thread whose API call launched it (NULL when not traced)
FROM _kernel_rows AS k
LEFT JOIN _launch_threads AS l ON l.correlation_id = k.correlation_id AND l.global_pid = k.global_pid
