-- name: _range_keys
-- kind: view
-- params: none
-- needs: _nvtx_range_times
-- _range_keys: each NVTX range once per attribution mode, with the key that a GPU operation must share with it.
--   thread   key = the range's thread; ranges ended on another thread are left out (as nsys leaves them out)
--   process  key = the range's process; every range
--   gpu      key = the range's process; every range
SELECT
    m.attribution,                             -- 'thread', 'process' or 'gpu'
    CASE m.attribution WHEN 'thread' THEN r.global_tid ELSE r.global_pid END AS key, -- thread or process key
    r.range_id,                                -- the range
    r.start_ns,                                -- its start (ns)
    r.end_ns                                   -- its end (ns)
FROM _nvtx_range_times AS r
CROSS JOIN (VALUES ('thread'), ('process'), ('gpu')) AS m(attribution)
WHERE m.attribution <> 'thread' OR r.end_tid IS NULL
