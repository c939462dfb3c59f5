-- name: processes
-- kind: view
-- params: none
-- needs: compat.PROCESSES
-- processes: the processes of the capture, with their names.
-- Needs: compat.PROCESSES (2021+); older exports list no processes here: use threads.
SELECT
    p.globalPid AS global_pid,                 -- nsys' global process id
    p.pid AS pid,                              -- operating-system process id
    p.name AS name                             -- process name
FROM compat.PROCESSES AS p
