-- name: breakdown_range_spans
-- kind: query
-- params: none
-- needs: _nvtx_ranges
-- breakdown_range_spans: every NVTX push/pop and start/end range of every process, for `breakdown --by range`:
-- the names it can show, their first start and how long each was open.  No parameters.
-- Named as breakdown shows them: the text in the default domain ('forward'), 'domain:text' in another. A range
-- left open at the end of the capture is closed there, as the attribution closes it.
SELECT
    pid,                                       -- process that opened the range
    coalesce(CASE WHEN domain IS NULL THEN text ELSE name END, name) AS range, -- range name
    start_ns,                                  -- range start (ns)
    end_ns                                     -- range end (ns)
FROM _nvtx_ranges
ORDER BY pid, start_ns, end_ns, range
