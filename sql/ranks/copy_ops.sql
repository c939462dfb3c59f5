-- name: copy_ops
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_MEMSET
-- copy_ops: the profile's memory copies and memsets as GPU intervals, what the steps' GPU busy time adds to the
-- kernels (ranks/data.py reads the kernels once for everything else; gpu_ops.sql is the one-query form).
-- Needs: compat.CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET.
SELECT start AS start_ns,                      -- GPU start (ns)
       "end" AS end_ns                         -- GPU end (ns)
FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY
UNION ALL
SELECT start, "end" FROM compat.CUPTI_ACTIVITY_KIND_MEMSET
