-- _mem_kind: the label nsys gives a CUPTI memory kind (ENUM_CUDA_MEM_KIND), as a scalar macro mem_kind(k).
-- Needs: nothing.
CASE k WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
    WHEN 4 THEN 'Managed' WHEN 5 THEN 'Device Static' WHEN 6 THEN 'Managed Static' ELSE 'Unknown' END
