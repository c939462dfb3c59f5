-- name: range_spans
-- kind: query
-- params: none
-- needs: nvtx_events
-- range_spans: the closed NVTX ranges of the profile (no marks, not NCCL's own domain, whose ranges annotate the
-- collectives rather than the program's phases), the input of the range tree that places kernels (ranks/paths.py).
SELECT
    start_ns,                                  -- range start (ns)
    end_ns,                                    -- range end (ns)
    name,                                      -- range name
    pid                                        -- process
FROM nvtx_events
WHERE end_ns IS NOT NULL AND style <> 'Mark' AND domain <> 'NCCL'
ORDER BY pid, start_ns, end_ns DESC, name
