-- name: serve_kernel_names
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, strings
-- serve_kernel_names: each distinct demangled kernel name, once, for serve/timeline_window.py to classify into the
-- categories of the rules file (a few thousand names, even for ten million kernels).
SELECT
    k.name_id,                                 -- strings.id of the demangled name
    s.value AS name                            -- the demangled name
FROM (SELECT DISTINCT demangledName AS name_id FROM compat.CUPTI_ACTIVITY_KIND_KERNEL) AS k
LEFT JOIN strings AS s ON s.id = k.name_id
ORDER BY k.name_id
