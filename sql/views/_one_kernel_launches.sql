-- name: _one_kernel_launches
-- kind: view
-- params: none
-- needs: strings
-- _one_kernel_launches: the CUDA API functions whose call launches exactly one kernel: cudaLaunch*, cuLaunch*, but
-- not graph launches (one call, every kernel of the graph) nor the multi-device cooperative launch (one kernel per
-- device). A count of distinct calls can count such kernels one by one (nvtx_projection, diagnose's launch_bound).
SELECT
    id                                         -- strings.id of the function's name
FROM strings
WHERE (value ILIKE 'cudaLaunch%' OR value ILIKE 'cuLaunch%')
  AND value NOT ILIKE '%graph%' AND value NOT ILIKE '%MultiDevice%'
