-- name: breakdown_by_name_busy
-- kind: query
-- params: none
-- needs: _breakdown_ops, strings
-- breakdown_by_name_busy: breakdown_by_name plus each name's share of the GPU's busy time. Where operations
-- overlap (several streams), every instant is shared equally among the operations running at that instant,
-- so the shares of all rows add up to the union of the busy intervals, per device (and NVTX range).
-- Needs: _breakdown_ops (breakdown_ops.sql), strings.
-- Sort and sweep per device (and range), no self-join: an operation that overlaps neither an
-- earlier one (running max of their ends) nor the next one keeps its whole duration; only overlapping ones go
-- through the event sweep, where an operation's share is F(end) - F(start), F(t) = integral of 1 / (operations running).
WITH flagged AS MATERIALIZED (
    SELECT part, name_id, label_id, label, rule, device, start_ns, end_ns,
        coalesce(max(end_ns) OVER earlier > start_ns, false)
            OR coalesce(lead(start_ns) OVER earlier < end_ns, false) AS overlapped
    FROM _breakdown_ops
    WINDOW earlier AS (
        PARTITION BY part, device ORDER BY start_ns, end_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
events AS (
    SELECT part, start_ns AS t, 1 AS step, name_id, label_id, label, rule, device FROM flagged WHERE overlapped
    UNION ALL
    SELECT part, end_ns AS t, -1 AS step, name_id, label_id, label, rule, device FROM flagged WHERE overlapped
),
instants AS (
    SELECT part, device, t, sum(sum(step)) OVER w AS active, lead(t) OVER w - t AS gap
    FROM events
    GROUP BY part, device, t
    WINDOW w AS (PARTITION BY part, device ORDER BY t)
),
integral AS (
    SELECT part, device, t, coalesce(sum(CASE WHEN active > 0 THEN gap / active END) OVER (
        PARTITION BY part, device ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS f
    FROM instants
),
shared AS (
    SELECT e.part, e.name_id, e.label_id, e.label, e.rule, e.device, sum(-e.step * i.f) AS share_ns
    FROM events AS e
    JOIN integral AS i ON i.part = e.part AND i.device = e.device AND i.t = e.t
    GROUP BY ALL
),
grouped AS (
    SELECT part, name_id, label_id, label, rule, device,
        count(*) AS instances, sum(end_ns - start_ns) AS total_ns,
        min(start_ns) AS first_start_ns, max(end_ns) AS last_end_ns,
        coalesce(sum(end_ns - start_ns) FILTER (WHERE NOT overlapped), 0) AS alone_ns
    FROM flagged
    GROUP BY ALL
)
SELECT
    g.part AS part,                            -- NVTX range with --by range; '' otherwise
    coalesce(g.rule, '') AS rule,             -- 'memcpy' or 'memset'; '' for kernels (classified by name)
    g.device AS device,                        -- CUDA device id
    g.instances AS instances,                  -- number of executions
    g.total_ns AS total_time_ns,               -- summed GPU time of the executions (ns)
    g.alone_ns + coalesce(sh.share_ns, 0) AS busy_time_ns, -- share of the device's busy time (ns, fractional)
    g.first_start_ns AS first_start_ns,        -- earliest start (ns)
    g.last_end_ns AS last_end_ns,              -- latest end (ns)
    coalesce(d.value, CASE WHEN g.rule IS NULL THEN g.label END, '') AS demangled, -- what the rules match: the
                                               -- demangled kernel name, '[CUDA graph N]'; '' for memcpy/memset
    coalesce(g.label, s.value, '') AS name     -- kernel name as chosen, or the memcpy/memset label
FROM grouped AS g
LEFT JOIN shared AS sh
    ON sh.part = g.part AND sh.device = g.device AND sh.name_id IS NOT DISTINCT FROM g.name_id
    AND sh.label_id IS NOT DISTINCT FROM g.label_id AND sh.label IS NOT DISTINCT FROM g.label
LEFT JOIN strings AS d ON d.id = g.name_id
LEFT JOIN strings AS s ON s.id = g.label_id
ORDER BY part, total_time_ns DESC, name, device
