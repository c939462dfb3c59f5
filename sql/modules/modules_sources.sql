-- name: modules_sources
-- kind: query
-- params: none
-- needs: _nvtx_ranges
-- modules_sources: whether the profile has the ranges `modules` reads, before the attribution of every kernel: a
-- backward module range of instrument(model, layers=True) ('bwd:<path>'), an emit_nvtx op range ('..., seq = N').
SELECT
    bool_or(text LIKE 'bwd:%') AS module_ranges,   -- instrument's backward module ranges
    bool_or(text LIKE '%, seq = %') AS op_ranges   -- emit_nvtx's op ranges
FROM _nvtx_ranges
