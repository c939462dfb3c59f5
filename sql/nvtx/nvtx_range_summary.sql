-- name: nvtx_range_summary
-- kind: query
-- params: none
-- needs: _nvtx_ranges, exact_variance
-- nvtx_range_summary: time per NVTX range name and style, = `nsys stats --report nvtx_sum`.
-- Every push/pop and start/end range counts (also one that ended on another thread). No
-- parameters. Unrounded; the report rounds as nsys does. Ordered as nsys: total time descending (then by name).
WITH summary AS (
    SELECT
        name,
        style,
        sum(duration_ns) AS total,
        count(*) AS num,
        sum(duration_ns) / count(*) AS avg,
        median(duration_ns) AS med,
        min(duration_ns) AS min,
        max(duration_ns) AS max,
        exact_variance(duration_ns) AS variance
    FROM _nvtx_ranges
    GROUP BY name, style
)
SELECT
    total::DOUBLE * 100.0::DOUBLE / (sum(total) OVER ())::DOUBLE AS time_pct, -- share of all ranges' summed time (%)
    total AS total_time_ns,                    -- summed duration of all instances
    num AS instances,                          -- number of ranges with this name and style
    avg AS avg_ns,                             -- mean duration
    med AS med_ns,                             -- median duration
    min AS min_ns,                             -- shortest instance
    max AS max_ns,                             -- longest instance
    coalesce(sqrt(variance), 0) AS stddev_ns,  -- sample standard deviation (0 for one instance)
    style,                                     -- PushPop or StartEnd
    name AS range                              -- 'domain:text', as nsys prints it
FROM summary
ORDER BY total DESC, name, style
