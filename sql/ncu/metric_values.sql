-- name: metric_values
-- kind: query
-- params: $metrics
-- needs: ncu_metrics
-- metric_values: chosen metrics of every result in long form; the caller pivots them into one column per metric.
-- Parameters: $metrics, the metric names separated by commas (metric names hold none).
SELECT
    m.kernel_id AS kernel_id,                  -- ncu_kernels.id
    m.metric AS metric,                        -- metric name
    m.value AS value,                          -- value in base units (NULL for text metrics)
    m.text AS text,                            -- value of a text metric
    m.unit AS unit                             -- base unit
FROM ncu_metrics AS m
WHERE list_contains(string_split($metrics, ','), m.metric)
ORDER BY m.kernel_id, m.metric
