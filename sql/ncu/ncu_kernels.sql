-- name: ncu_kernels
-- kind: query
-- params: none
-- needs: _ncu_kernels_load, _ncu_nvtx_load
-- ncu_kernels: one row per profiled result of an Nsight Compute report (a kernel launch; a range or graph in range replay).
-- Needs: _ncu_kernels_load, _ncu_nvtx_load (the loader's rows). Launch attributes come from the launch__* metrics;
-- NVTX columns summarize ncu_nvtx (push/pop stacks are written outermost first, ranges of other domains as DOMAIN@name).
WITH stacks AS (
    SELECT kernel_id, domain, string_agg(name, '/' ORDER BY level) AS path, arg_max(name, level) AS innermost
    FROM _ncu_nvtx_load
    WHERE kind = 'push_pop'
    GROUP BY kernel_id, domain
), push_pop AS (
    SELECT
        kernel_id,
        coalesce(max(innermost) FILTER (WHERE domain = '<default domain>'), min(innermost)) AS nvtx_range,
        string_agg(CASE WHEN domain = '<default domain>' THEN path ELSE domain || '@' || path END, ' | '
                   ORDER BY domain <> '<default domain>', domain) AS nvtx_path
    FROM stacks
    GROUP BY kernel_id
), start_end AS (
    SELECT kernel_id, string_agg(CASE WHEN domain = '<default domain>' THEN name ELSE domain || '@' || name END, ' | '
                                 ORDER BY domain, level) AS nvtx_start_end
    FROM _ncu_nvtx_load
    WHERE kind = 'start_end'
    GROUP BY kernel_id
)
SELECT
    k.id::BIGINT AS id,                        -- result id, 0-based in report order (ncu's ID column)
    k.range_id::INTEGER AS range_id,           -- index of the report range that holds it
    k.action_id::INTEGER AS action_id,         -- index of the result within its range
    k.workload_type::VARCHAR AS workload_type, -- kernel, range (range replay), graph, cmdlist or subgrid_schedule
    k.name::VARCHAR AS name,                   -- demangled name (as nsys demangles it; a CSV keeps ncu's spelling)
    k.function::VARCHAR AS function,           -- bare function name (ncu's --print-kernel-base function)
    k.mangled_name::VARCHAR AS mangled_name,   -- mangled name (NULL when read from a CSV)
    k.pid::BIGINT AS pid,                      -- process id
    k.process_name::VARCHAR AS process_name,   -- executable of the process
    k.host::VARCHAR AS host,                   -- host name
    k.device::BIGINT AS device,                -- CUDA device id
    k.context::BIGINT AS context,              -- CUDA context id
    k.stream::BIGINT AS stream,                -- CUDA stream id
    k.cc::VARCHAR AS cc,                       -- compute capability, e.g. 9.0
    k.grid_x::BIGINT AS grid_x,                -- grid size (blocks), x
    k.grid_y::BIGINT AS grid_y,                -- grid size, y
    k.grid_z::BIGINT AS grid_z,                -- grid size, z
    k.block_x::BIGINT AS block_x,              -- block size (threads), x
    k.block_y::BIGINT AS block_y,              -- block size, y
    k.block_z::BIGINT AS block_z,              -- block size, z
    p.nvtx_range AS nvtx_range,                -- innermost push/pop range (default domain first); NULL if none
    p.nvtx_path AS nvtx_path,                  -- push/pop stacks: outer/inner, other domains as DOMAIN@outer/inner
    s.nvtx_start_end AS nvtx_start_end         -- start/end ranges open at launch (DOMAIN@name, ' | '-separated)
FROM _ncu_kernels_load AS k
LEFT JOIN push_pop AS p ON p.kernel_id = k.id
LEFT JOIN start_end AS s ON s.kernel_id = k.id
ORDER BY k.id
