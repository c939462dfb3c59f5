-- name: timeline_span
-- kind: query
-- params: none
-- needs: _nvtx_range_times, compat.CUPTI_ACTIVITY_KIND_GRAPH_TRACE, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_MEMSET
-- timeline_span: the window a timeline without --start/--end shows: the span of the profile's GPU work (kernels,
-- copies, memsets, CUDA graphs traced whole), or of its NVTX ranges when it has no GPU work. (NVTX ranges left open until the end of the
-- capture would otherwise stretch the picture far past the last kernel.)
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_MEMCPY, compat.CUPTI_ACTIVITY_KIND_MEMSET,
-- compat.CUPTI_ACTIVITY_KIND_GRAPH_TRACE, _nvtx_range_times.
WITH gpu AS (
    SELECT min(s) AS s, max(e) AS e FROM (
        SELECT min(start) AS s, max("end") AS e FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
        UNION ALL SELECT min(start), max("end") FROM compat.CUPTI_ACTIVITY_KIND_MEMCPY
        UNION ALL SELECT min(start), max("end") FROM compat.CUPTI_ACTIVITY_KIND_MEMSET
        UNION ALL SELECT min(start), max("end") FROM compat.CUPTI_ACTIVITY_KIND_GRAPH_TRACE
    )
),
nvtx AS (
    SELECT min(start_ns) AS s, max(end_ns) AS e FROM _nvtx_range_times
)
SELECT
    coalesce(gpu.s, nvtx.s) AS start_ns,       -- first start (ns)
    coalesce(gpu.e, nvtx.e) AS end_ns          -- last end (ns)
FROM gpu, nvtx
