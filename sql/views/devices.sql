-- name: devices
-- kind: view
-- params: none
-- needs: compat.TARGET_INFO_CUDA_GPU, compat.TARGET_INFO_GPU
-- devices: the GPUs of the capture (TARGET_INFO_GPU; TARGET_INFO_CUDA_GPU in exports before 2021).
SELECT DISTINCT ON (device)
    device,                                    -- CUDA device id, as in kernels.device
    name,                                      -- product name, e.g. NVIDIA H200
    bus_location,                              -- PCI bus location
    memory_bytes,                              -- device memory (bytes)
    sm_count,                                  -- streaming multiprocessors
    compute_capability                         -- e.g. 9.0
FROM (
    SELECT coalesce(id, deviceId) AS device, name, busLocation AS bus_location, totalMemory AS memory_bytes,
           smCount AS sm_count, computeMajor || '.' || computeMinor AS compute_capability, 0 AS pref
    FROM compat.TARGET_INFO_GPU
    UNION ALL
    SELECT deviceId, name, pciBusId, globalMemorySize, numMultiprocessors,
           computeCapabilityMajor || '.' || computeCapabilityMinor, 1
    FROM compat.TARGET_INFO_CUDA_GPU
)
ORDER BY device, pref
