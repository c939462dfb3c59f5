-- name: kernel_names
-- kind: query
-- params: none
-- needs: _visual_kernels, strings
-- kernel_names: the distinct demangled kernel names in the window, to be classified once each in Python
-- (categories.RuleSet) into the temp table _visual_categories that trace_gpu.sql joins.
-- Needs (a temp view visual/data.py creates): _visual_kernels; strings.
SELECT
    k.name_id,                                 -- strings.id of the demangled name
    s.value AS name                            -- the demangled name
FROM (SELECT DISTINCT demangledName AS name_id FROM _visual_kernels) AS k
LEFT JOIN strings AS s ON s.id = k.name_id
ORDER BY name_id
