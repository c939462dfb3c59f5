-- name: cuda_memcpy_async
-- kind: query
-- params: $from_ns, $rows, $to_ns
-- needs: _diag.copy_calls
-- cuda_memcpy_async: asynchronous copies (cudaMemcpy*Async*) from or to pageable host memory, which run
-- synchronously; = `nsys analyze --rule cuda_memcpy_async`. Longest first.
-- Params: $from_ns, $to_ns: copies overlapping [from, to) (the API call is not filtered, as in nsys);
-- $rows: row limit (NULL: all).
SELECT
    duration_ns,                               -- copy time on the GPU (ns)
    start_ns,                                  -- copy start on the GPU (ns)
    src_memory,                                -- source memory kind (Pageable, Pinned, Device, ...)
    dst_memory,                                -- destination memory kind
    bytes,                                     -- bytes copied
    pid,                                       -- process
    device,                                    -- CUDA device id
    context,                                   -- CUDA context id
    green_context,                             -- green context id (NULL when none)
    stream,                                    -- CUDA stream id
    api_name                                   -- the runtime call that issued the copy
FROM _diag.copy_calls
WHERE (src_kind_id = 0 OR dst_kind_id = 0)
  AND api_name ILIKE 'cudaMemcpy%Async%'
  AND ((start_ns >= $from_ns AND start_ns < $to_ns) OR (end_ns >= $from_ns AND end_ns < $to_ns)
       OR (start_ns < $from_ns AND end_ns >= $to_ns))
ORDER BY duration_ns DESC, start_ns
LIMIT $rows
