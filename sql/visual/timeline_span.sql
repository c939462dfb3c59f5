-- timeline_span: the span of the profile's GPU work and CUDA calls, the window a timeline without --start/--end
-- shows. Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_MEMCPY,
-- compat.CUPTI_ACTIVITY_KIND_MEMSET, _nvtx_range_times.
SELECT
    min(s) AS start_ns,                        -- first start (ns)
    max(e) AS end_ns                           -- last end (ns)
FROM (
    SELECT min(start) AS s, max("end") AS e FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL SELECT min(start), max("end") FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY
    UNION ALL SELECT min(start), max("end") FROM compat.CUPTI_ACTIVITY_KIND_MEMSET
    UNION ALL SELECT min(start_ns), max(end_ns) FROM _nvtx_range_times
)
