-- name: timeline_threads
-- kind: query
-- params: none
-- needs: compat.PROCESSES, threads
-- timeline_threads: thread and process names for the timeline's row titles.
SELECT
    t.pid,                                     -- process
    t.tid,                                     -- thread
    t.name AS thread_name,                     -- thread name (NULL when not recorded)
    p.name AS process_name                     -- process name (NULL when not recorded)
FROM threads AS t
LEFT JOIN (SELECT pid, any_value(name) AS name FROM compat.PROCESSES GROUP BY pid) AS p ON p.pid = t.pid
ORDER BY pid, tid
