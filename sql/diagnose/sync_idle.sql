-- name: sync_idle
-- kind: query
-- params: $pid
-- needs: _diag.next_at, _diag.spans, _diag.sync_calls
-- sync_idle: the GPU idle time that cuda_api_sync's calls cause: for each call and device of its process, the idle
-- time from the later of the call's start and the end of the work issued before it returns (the queued work ran
-- out) to the first GPU operation that starts after it returned, at most the call's duration: without the call the
-- CPU would have issued that operation at most that much sooner, so a pause of the CPU after the call is not the
-- call's. The gaps between operations that were already queued when the call was made (a few microseconds between
-- kernels, the start latency of the last kernel launched) are not the call's either: they happen with or without
-- it (diag_faults' truth, tests/test_diagnose_truth.py: charged with them, a data loader's syncs read 36.2 ms of
-- idle where the GPU's own timers measured 33.5 ms; now 33.2 ms). A call made while the GPU is busy costs only the
-- gap from its return to the next operation. From the pass (sweep.py), no range join: _diag.next_at gives, at each
-- call's return, the latest end of the operations started before it and the next operation's start (none after
-- the device's last operation).
-- Needs: _diag.sync_calls, _diag.next_at, _diag.spans.
-- Params: $pid: the calls of that process alone (NULL: every process).
-- One row: the totals, the GPU span of the devices charged, and the three calls that cost most.
WITH
    charged AS (
        SELECT c.pid, c.device, c.call_start_ns, c.call_end_ns, c.from_ns,
               coalesce(nullif(n.next_start_ns, -1), c.until_ns) AS to_ns,
               least(greatest(c.until_ns - greatest(c.from_ns, n.latest_end_ns), 0)  -- in the call, nothing queued
                     + CASE WHEN n.next_start_ns > greatest(c.until_ns, n.latest_end_ns)  -- after it, until the next
                            THEN n.next_start_ns - greatest(c.until_ns, n.latest_end_ns) ELSE 0 END,
                     c.call_end_ns - c.call_start_ns) AS idle_ns
        FROM _diag.sync_calls AS c
        LEFT JOIN _diag.next_at AS n
          ON n.pid = c.pid AND n.device = c.device AND n.t = c.until_ns
        WHERE $pid IS NULL OR c.pid = $pid
    )
SELECT
    count(DISTINCT (pid, call_start_ns, call_end_ns)) AS calls, -- calls charged
    coalesce(sum(idle_ns), 0)::BIGINT AS idle_ns,  -- GPU idle time they cause, all devices (ns)
    count(*) FILTER (WHERE idle_ns > 0) AS idle_calls, -- calls after which a device sat idle
    max_by([from_ns, to_ns], [idle_ns, -from_ns], 3) FILTER (WHERE idle_ns > 0) AS worst,
                                                    -- the three costliest: [call start, next operation] (ns)
    (SELECT coalesce(sum(end_ns - start_ns), 0) FROM _diag.spans
     WHERE (pid, device) IN (SELECT (pid, device) FROM _diag.sync_calls WHERE $pid IS NULL OR pid = $pid))::BIGINT
        AS span_ns                                  -- GPU span of the devices charged (ns)
FROM charged
