-- name: mem_kind
-- kind: scalar_macro
-- params: k
-- needs: none
-- mem_kind(k): scalar macro, the label nsys gives a CUPTI memory kind (ENUM_CUDA_MEM_KIND), e.g. 0 -> 'Pageable'.
-- Used by the memcpy and memset views and by diagnose's copy rules.
CASE k WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
    WHEN 4 THEN 'Managed' WHEN 5 THEN 'Device Static' WHEN 6 THEN 'Managed Static' ELSE 'Unknown' END
