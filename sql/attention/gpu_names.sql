-- name: gpu_names
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, devices
-- gpu_names: the product names of the GPUs that ran the profile's kernels (one row per distinct name), for the
-- ridge point of `attention` (peaks.py looks each up). Devices that ran no kernel are left out: a capture lists
-- every GPU of the machine.  No parameters.
SELECT DISTINCT d.name AS name                 -- product name, e.g. NVIDIA H200
FROM devices AS d
WHERE d.name IS NOT NULL
  AND d.device IN (SELECT DISTINCT deviceId FROM compat.CUPTI_ACTIVITY_KIND_KERNEL)
ORDER BY d.name
