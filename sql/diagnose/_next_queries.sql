-- name: _next_queries
-- kind: query
-- params: none
-- needs: _diag.sync_calls
-- _next_queries: the times at which sweep.py finds the next GPU operation's start and the latest end before it
-- (_diag.next_at): each synchronization call's return, within its device's span (sync_idle.sql).
SELECT DISTINCT
    pid,                                            -- process
    device,                                         -- CUDA device id
    until_ns AS t                                   -- the time (ns)
FROM _diag.sync_calls
ORDER BY pid, device, t
