-- name: nvtx_range_summary
-- kind: query
-- params: none
-- needs: _range_durations, counted_median, counted_variance
-- nvtx_range_summary: time per NVTX range name and style, = `nsys stats --report nvtx_sum`.
-- Every push/pop and start/end range counts (also one that ended on another thread). No
-- parameters. Unrounded; the report rounds as nsys does. Ordered as nsys: total time descending (then by name).
-- Computed from each name's distinct durations and their counts (_range_durations, which the columnar cache stores)
-- with the counted forms of median() and the exact variance, which give the same doubles: a warm `nvtx` reads those
-- rows instead of naming every range again from the export's strings (a 3 M-kernel export's 141 k ranges: the
-- whole `nvtx` process 0.17 s instead of 0.20 s).
WITH ranked AS (  -- ranges up to each duration, of the name's ranges, and their mean
    SELECT *,
        sum(instances) OVER (PARTITION BY name, style ORDER BY duration_ns) AS upto,
        sum(instances) OVER (PARTITION BY name, style) AS name_rows,
        sum(duration_ns::HUGEINT * instances) OVER (PARTITION BY name, style)
            / sum(instances) OVER (PARTITION BY name, style) AS mean
    FROM _range_durations
    WHERE duration_ns IS NOT NULL
),
timed AS (
    SELECT
        name,
        style,
        sum(duration_ns::HUGEINT * instances) AS total,
        counted_median(duration_ns, upto, name_rows) AS med,
        min(duration_ns) AS min,
        max(duration_ns) AS max,
        counted_variance(duration_ns, instances, mean) AS variance
    FROM ranked
    GROUP BY name, style
),
summary AS (  -- a range without a duration (a hostile file) counts as an instance, as count(*) counts it
    SELECT c.name, c.style, t.total, c.num, t.total / c.num AS avg, t.med, t.min, t.max, t.variance
    FROM (SELECT name, style, sum(instances)::BIGINT AS num FROM _range_durations GROUP BY name, style) AS c
    LEFT JOIN timed AS t ON t.name = c.name AND t.style = c.style
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
