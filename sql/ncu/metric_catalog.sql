-- name: metric_catalog
-- kind: query
-- params: none
-- needs: ncu_metrics
-- metric_catalog: the metrics a report holds, with their base unit and how many results have each.
SELECT
    metric,                                    -- metric name
    any_value(unit) AS unit,                   -- base unit ('' for counts)
    count(*) AS results,                       -- results (kernels) that have it
    bool_or(text IS NOT NULL) AS is_text       -- true for text metrics (names, enums)
FROM ncu_metrics
GROUP BY metric
ORDER BY metric
