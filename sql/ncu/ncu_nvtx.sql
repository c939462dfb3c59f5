-- name: ncu_nvtx
-- kind: query
-- params: none
-- needs: _ncu_nvtx_load
-- ncu_nvtx: the NVTX state of each result: every push/pop range on the stack and every open start/end range, per domain.
-- Only present when the report was captured with `ncu --nvtx`.
SELECT
    kernel_id::BIGINT AS kernel_id,            -- ncu_kernels.id
    domain::VARCHAR AS domain,                 -- NVTX domain ('<default domain>' for the default one)
    kind::VARCHAR AS kind,                     -- push_pop or start_end
    level::INTEGER AS level,                   -- position in the domain's stack, 0 = outermost
    name::VARCHAR AS name,                     -- range name (message)
    tid::BIGINT AS tid                         -- thread that pushed it (CSV input only; NULL from a report)
FROM _ncu_nvtx_load
ORDER BY kernel_id, domain, kind, level
