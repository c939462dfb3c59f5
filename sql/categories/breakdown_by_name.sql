-- name: breakdown_by_name
-- kind: query
-- params: none
-- needs: _breakdown_groups, strings
-- breakdown_by_name: GPU time per kernel name (and per memcpy/memset kind) and device, with the name to classify.
-- Needs: _breakdown_groups (breakdown_groups.sql over _breakdown_ops), strings.
-- No parameters (the filters are in _breakdown_ops). The caller classifies each distinct demangled name once
-- (categories/data.py); memcpy/memset come with rule 'memcpy'/'memset' and go to category memory.
SELECT
    g.part AS part,                            -- NVTX range with --by range; '' otherwise
    coalesce(g.rule, '') AS rule,             -- 'memcpy' or 'memset'; '' for kernels (classified by name)
    g.device AS device,                        -- CUDA device id
    g.instances AS instances,                  -- number of executions
    g.total_ns AS total_time_ns,               -- summed GPU time of the executions (ns)
    g.first_start_ns AS first_start_ns,        -- earliest start (ns)
    g.last_end_ns AS last_end_ns,              -- latest end (ns)
    coalesce(d.value, CASE WHEN g.rule IS NULL THEN g.label END, '') AS demangled, -- what the rules match: the
                                               -- demangled kernel name, '[CUDA graph N]'; '' for memcpy/memset
    coalesce(g.label, s.value, '') AS name     -- kernel name as chosen, or the memcpy/memset label
FROM _breakdown_groups AS g
LEFT JOIN strings AS d ON d.id = g.name_id
LEFT JOIN strings AS s ON s.id = g.label_id
ORDER BY part, total_time_ns DESC, name, device
