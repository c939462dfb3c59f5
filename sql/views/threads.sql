-- name: threads
-- kind: view
-- params: none
-- needs: compat.ThreadNames, strings
-- threads: every thread nsys saw, with its name when it was recorded.
-- pid/tid are decoded from globalTid (pid = bits 24..47, tid = bits 0..23).
SELECT
    t.globalTid AS global_tid,                 -- nsys' global thread id
    (t.globalTid >> 24) & 16777215 AS pid,     -- operating-system process id
    t.globalTid & 16777215 AS tid,             -- operating-system thread id
    s.value AS name,                           -- thread name
    t.priority AS priority                     -- scheduling priority
FROM compat.ThreadNames AS t
LEFT JOIN strings AS s ON s.id = t.nameId
