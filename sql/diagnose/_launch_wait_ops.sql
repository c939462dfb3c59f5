-- name: _launch_wait_ops
-- kind: query
-- params: $device, $every_key, $from_ns, $hi, $lo, $long_launch_ns, $pid, $short_ns, $to_ns
-- needs: _one_kernel_launches, _range_ops
-- _launch_wait_ops: one process/device's GPU operations of the window that start in a time slice, the input of
-- launch_wait.py; unsorted (numpy sorts them by start). Each kernel launched by a call that launches one kernel
-- (graph launches excluded) comes with that call's end; every other operation has 2^62 there, so that it never
-- reads as queued.
-- Params: $pid, $device: the process/device ($every_key: the window's only one, not compared); $from_ns, $to_ns:
-- the time window (operations overlapping it); $lo, $hi: the operations starting in [lo, hi); $short_ns,
-- $long_launch_ns: launch_bound's kernels (a kernel shorter than $short_ns and than its launch call, the call no
-- longer than $long_launch_ns).
SELECT
    start_ns,                                                   -- operation start (ns)
    end_ns,                                                     -- operation end (ns)
    coalesce(launched AND end_ns - start_ns < $short_ns AND end_ns - start_ns < launch_end_ns - launch_start_ns
             AND launch_end_ns - launch_start_ns <= $long_launch_ns, false) AS bound,  -- one of launch_bound's
    CASE WHEN launched THEN launch_end_ns ELSE 4611686018427387904 END AS launch_end_ns  -- launch call end (ns)
FROM (
    SELECT start_ns, end_ns, launch_start_ns, launch_end_ns,
           kind = 'kernel' AND launch_name_id IN (SELECT id FROM _one_kernel_launches) AS launched
    FROM _range_ops
    WHERE ($every_key OR ((global_pid >> 24) & 16777215 = $pid AND device = $device))
      AND start_ns > 0 AND start_ns >= $lo AND start_ns < $hi
      AND start_ns < $to_ns AND end_ns >= $from_ns  -- overlapping the window
)
