-- breakdown_range_spans: the closed NVTX ranges (push/pop and start/end) of every process, for `breakdown --by range`.
-- Needs: nvtx_events. No parameters. Ranges of a non-default domain are named 'domain:text'.
SELECT
    pid,                                       -- process that opened the range
    CASE WHEN domain = '' THEN name ELSE domain || ':' || name END AS range, -- range name
    start_ns,                                  -- range start (ns)
    end_ns                                     -- range end (ns)
FROM nvtx_events
WHERE style <> 'Mark' AND end_ns IS NOT NULL AND name IS NOT NULL
ORDER BY pid, start_ns, end_ns, range
