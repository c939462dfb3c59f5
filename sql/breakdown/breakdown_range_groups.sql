-- name: breakdown_range_groups
-- kind: query
-- params: none
-- needs: _breakdown_chosen, _breakdown_placed
-- breakdown_range_groups: the columns of sql/categories/breakdown_groups.sql for `breakdown --by range`: the
-- operations of _breakdown_placed (breakdown_range_ops.sql) grouped by range name, name and device. They are
-- grouped by their set of chosen names (bits) first, a few hundred groups, and only those are spread over the names
-- they hold: an operation is counted once in each. At 20 M kernels, a row per operation and name (38 M) took 1.8 s
-- more. breakdown/ranges.py creates it as the temp view _breakdown_groups.
WITH by_bits AS (
    SELECT bits, name_id, label_id, label, rule, device,
        count(*) AS instances, sum(end_ns - start_ns) AS total_ns,
        min(start_ns) AS first_start_ns, max(end_ns) AS last_end_ns
    FROM _breakdown_placed
    GROUP BY ALL
)
SELECT
    n.part,                                    -- NVTX range name
    g.name_id,                                 -- strings.id of the demangled kernel name; NULL for memcpy/memset
    g.label_id,                                -- strings.id of the name shown; NULL for memcpy/memset
    g.label,                                   -- '[CUDA graph N]', the memcpy/memset label; NULL for kernels
    g.rule,                                    -- 'memcpy' or 'memset'; NULL for kernels and graphs
    g.device,                                  -- CUDA device id
    sum(g.instances)::BIGINT AS instances,     -- number of executions
    sum(g.total_ns) AS total_ns,               -- summed GPU time (ns)
    min(g.first_start_ns) AS first_start_ns,   -- earliest start (ns)
    max(g.last_end_ns) AS last_end_ns          -- latest end (ns)
FROM by_bits AS g
JOIN _breakdown_chosen AS n ON bit_count(g.bits & n.bit) > 0
GROUP BY ALL
