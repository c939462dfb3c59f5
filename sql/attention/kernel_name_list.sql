-- name: kernel_name_list
-- kind: query
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, graph_executions, strings
-- kernel_name_list: every distinct name a kernel or a whole CUDA graph execution of the profile has (the demangled
-- kernel name, '[CUDA graph N]'), for the caller to classify each once (attention's fused kernels, by the category
-- rules).  No parameters.
SELECT s.value AS name                         -- a kernel or graph name
FROM strings AS s
WHERE s.id IN (SELECT DISTINCT demangledName FROM compat.CUPTI_ACTIVITY_KIND_KERNEL)
UNION
SELECT name FROM graph_executions
ORDER BY name
