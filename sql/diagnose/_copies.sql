-- name: _copies
-- kind: query
-- params: $from_ns, $to_ns
-- needs: memcpy
-- _copies: the host<->device copies of the time window, with whether they read or write pageable or pinned host
-- memory; created as the view _diag.copies (copy_bottleneck, and the times at which sweep.py measures kernel busy
-- time for it).
-- Params: $from_ns, $to_ns: copies overlapping [from, to).
SELECT
    pid,                                            -- process
    device,                                         -- CUDA device id
    start_ns,                                       -- copy start (ns)
    end_ns,                                         -- copy end (ns)
    duration_ns,                                    -- copy time (ns)
    bytes,                                          -- bytes copied
    src_memory = 'Pageable' OR dst_memory = 'Pageable' AS pageable, -- from or to pageable host memory
    src_memory = 'Pinned' OR dst_memory = 'Pinned' AS pinned        -- from or to pinned host memory
FROM memcpy
WHERE copy_kind_id IN (1, 2) AND start_ns > 0
  AND ((start_ns >= $from_ns AND start_ns < $to_ns) OR (end_ns >= $from_ns AND end_ns < $to_ns)
       OR (start_ns < $from_ns AND end_ns >= $to_ns))
