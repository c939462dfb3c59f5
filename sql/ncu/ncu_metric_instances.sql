-- name: ncu_metric_instances
-- kind: query
-- params: none
-- needs: _ncu_instances_load
-- ncu_metric_instances: the instance values of metrics that have several (e.g. the occupancy graphs), one row each.
-- Read from the report on first use (it costs as much again as the rest); empty for CSVs.
SELECT
    kernel_id::BIGINT AS kernel_id,            -- ncu_kernels.id
    metric::VARCHAR AS metric,                 -- metric name (ncu_metrics holds its aggregate value)
    instance::INTEGER AS instance,             -- instance index
    CASE WHEN isnan(value::DOUBLE) THEN NULL ELSE value::DOUBLE END AS value, -- instance value in base units
    correlation_id::BIGINT AS correlation_id   -- what the instance is of (e.g. the block size of an occupancy point)
FROM _ncu_instances_load
ORDER BY kernel_id, metric, instance
