-- name: devices
-- kind: view
-- params: none
-- needs: compat.TARGET_INFO_CUDA_GPU, compat.TARGET_INFO_GPU
-- devices: the GPUs of the capture (TARGET_INFO_GPU; TARGET_INFO_CUDA_GPU in exports before 2021).
-- An export may have both tables (nsys 2020.3: TARGET_INFO_GPU names the GPUs, TARGET_INFO_CUDA_GPU has their memory,
-- SMs and compute capability): each column is taken from the first table that has a value for it. Before 2021,
-- TARGET_INFO_CUDA_GPU.globalMemorySize is in MiB (48601 for a 48 GB Quadro RTX 8000); no GPU has less than
-- 16 TiB in MiB or less than 16 MiB in bytes, so a value below 2^24 is MiB.
SELECT
    device,                                                                   -- CUDA device id, as in kernels.device
    arg_min(name, pref) FILTER (WHERE name IS NOT NULL) AS name,              -- product name, e.g. NVIDIA H200
    arg_min(bus_location, pref) FILTER (WHERE bus_location IS NOT NULL)
        AS bus_location,                                                      -- PCI bus location
    arg_min(memory_bytes, pref) FILTER (WHERE memory_bytes IS NOT NULL)
        AS memory_bytes,                                                      -- device memory (bytes)
    arg_min(sm_count, pref) FILTER (WHERE sm_count IS NOT NULL) AS sm_count, -- streaming multiprocessors
    arg_min(compute_capability, pref) FILTER (WHERE compute_capability IS NOT NULL)
        AS compute_capability                                                 -- e.g. 9.0
FROM (
    SELECT coalesce(id, deviceId) AS device, name, busLocation AS bus_location, totalMemory AS memory_bytes,
           smCount AS sm_count, computeMajor || '.' || computeMinor AS compute_capability, 0 AS pref
    FROM compat.TARGET_INFO_GPU
    UNION ALL
    SELECT deviceId, name, nullif(pciBusId, '<UNKNOWN_BUS_ID>'),
           CASE WHEN globalMemorySize < 16777216 THEN globalMemorySize * 1048576 ELSE globalMemorySize END,
           numMultiprocessors, computeCapabilityMajor || '.' || computeCapabilityMinor, 1
    FROM compat.TARGET_INFO_CUDA_GPU
)
GROUP BY device
ORDER BY device
