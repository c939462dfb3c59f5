-- name: breakdown_groups
-- kind: query
-- params: none
-- needs: _breakdown_ops
-- breakdown_groups: the operations of _breakdown_ops (breakdown_ops.sql; with --by range, breakdown_range_ops.sql)
-- grouped by range, name and device: how many, their summed time and their span. categories/data.py creates it as
-- the temp view _breakdown_groups, which breakdown_by_name.sql names.
SELECT
    part,                                      -- NVTX range with --by range; '' otherwise
    name_id,                                   -- strings.id of the demangled kernel name; NULL for memcpy/memset
    label_id,                                  -- strings.id of the name shown; NULL for memcpy/memset
    label,                                     -- '[CUDA graph N]', the memcpy/memset label; NULL for kernels
    rule,                                      -- 'memcpy' or 'memset'; NULL for kernels and graphs
    device,                                    -- CUDA device id
    count(*) AS instances,                     -- number of executions
    sum(end_ns - start_ns) AS total_ns,        -- summed GPU time (ns)
    min(start_ns) AS first_start_ns,           -- earliest start (ns)
    max(end_ns) AS last_end_ns                 -- latest end (ns)
FROM _breakdown_ops
GROUP BY ALL
