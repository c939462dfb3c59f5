-- name: modules_kernel_span
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL
-- modules_kernel_span: the wall time that `modules --window all` shares each module's GPU time of: from the first
-- kernel's start to the last kernel's end, over the whole capture (the steady state's is its steps' span instead).
SELECT
    min(start) AS start_ns,                    -- first kernel's start (ns); NULL: no kernel
    max("end") AS end_ns                       -- last kernel's end (ns)
FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
