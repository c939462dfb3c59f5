-- breakdown_range_explode: the operations of _breakdown_placed (breakdown_range_ops.sql), one row per operation
-- and NVTX range it belongs to, for the per-range busy-time sweep. Needs: _breakdown_placed, _range_sets.
-- No parameters.
SELECT
    o.start_ns AS start_ns,                    -- GPU start (ns)
    o.end_ns AS end_ns,                        -- GPU end (ns)
    o.device AS device,                        -- CUDA device id
    o.pid AS pid,                              -- process
    o.correlation_id AS correlation_id,        -- links to the launching CUDA API call
    o.name_id AS name_id,                      -- strings.id of the demangled kernel name; NULL for memcpy/memset
    o.label_id AS label_id,                    -- strings.id of the name shown; NULL for memcpy/memset
    o.label AS label,                          -- memcpy/memset label; NULL for kernels
    o.rule AS rule,                            -- 'memcpy' or 'memset'; NULL for kernels
    r.part AS part                             -- the NVTX range
FROM _breakdown_placed AS o
JOIN _range_sets AS r ON r.set_id::VARCHAR = o.part
