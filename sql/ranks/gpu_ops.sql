-- name: gpu_ops
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_MEMSET, compat.StringIds
-- gpu_ops: every GPU operation of the profile as an interval, flagged kernel / NCCL kernel: the input of the step
-- GPU time (ranks/intervals.py). Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET, compat.StringIds.
-- Reads the compat tables, not the views: no names or launch threads are needed.
WITH nccl_names AS (
    SELECT id FROM compat.StringIds WHERE value LIKE 'nccl%'
)
SELECT
    k.start AS start_ns,                       -- GPU start (ns)
    k."end" AS end_ns,                         -- GPU end (ns)
    true AS is_kernel,                         -- a kernel (not a copy or memset)
    k.demangledName IN (SELECT id FROM nccl_names) AS is_comm -- an NCCL kernel
FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
UNION ALL SELECT start, "end", false, false FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY
UNION ALL SELECT start, "end", false, false FROM compat.CUPTI_ACTIVITY_KIND_MEMSET
