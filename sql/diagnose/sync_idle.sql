-- name: sync_idle
-- kind: query
-- params: $pid
-- needs: _diag.busy_at, _diag.next_at, _diag.spans, _diag.sync_calls
-- sync_idle: the GPU idle time that cuda_api_sync's calls cause: for each call and device of its process, the idle
-- time (no GPU operation on any stream) from the call's start to the first GPU operation that starts after it
-- returned, at most the call's duration: without the call the CPU would have issued that operation at most that
-- much sooner, so a pause of the CPU after the call is not the call's. A call made while the GPU is busy costs only
-- the gap from its return to the next operation. From the pass (sweep.py), no range join: the idle time during the
-- call is its length minus the busy time of the merged operations between its ends (_diag.busy_at); after it
-- returns, the device is idle from the later of the return and the latest end of the operations started before,
-- up to the next operation's start (_diag.next_at; none after the device's last operation).
-- Needs: _diag.sync_calls, _diag.busy_at (all work: kernels = false), _diag.next_at, _diag.spans.
-- Params: $pid: the calls of that process alone (NULL: every process).
-- One row: the totals, the GPU span of the devices charged, and the three calls that cost most.
WITH
    charged AS (
        SELECT c.pid, c.device, c.call_start_ns, c.call_end_ns, c.from_ns,
               coalesce(nullif(n.next_start_ns, -1), c.until_ns) AS to_ns,
               least((c.until_ns - c.from_ns) - (b_to.busy_ns - b_from.busy_ns)
                     + CASE WHEN n.next_start_ns > greatest(c.until_ns, n.latest_end_ns)
                            THEN n.next_start_ns - greatest(c.until_ns, n.latest_end_ns) ELSE 0 END,
                     c.call_end_ns - c.call_start_ns) AS idle_ns
        FROM _diag.sync_calls AS c
        JOIN _diag.busy_at AS b_from
          ON NOT b_from.kernels AND b_from.pid = c.pid AND b_from.device = c.device AND b_from.t = c.from_ns
        JOIN _diag.busy_at AS b_to
          ON NOT b_to.kernels AND b_to.pid = c.pid AND b_to.device = c.device AND b_to.t = c.until_ns
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
