-- name: ncu_metrics
-- kind: query
-- params: none
-- needs: _ncu_metrics_load
-- ncu_metrics: every metric of every result, long form, in base units (as `ncu --print-units base` prints them).
-- Numeric metrics fill value, text metrics (names, enums) fill text.
SELECT
    kernel_id::BIGINT AS kernel_id,            -- ncu_kernels.id
    metric::VARCHAR AS metric,                 -- metric name, e.g. gpu__time_duration.sum
    CASE WHEN isnan(value::DOUBLE) THEN NULL ELSE value::DOUBLE END AS value, -- value in base units; NULL for text
    text::VARCHAR AS text,                     -- value of a text metric; NULL for numbers
    unit::VARCHAR AS unit                      -- base unit: ns, byte, hz, byte/s, %, ... ('' for counts)
FROM _ncu_metrics_load
ORDER BY kernel_id, metric
