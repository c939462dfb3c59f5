-- name: modules_forward_ops
-- kind: query
-- params: $not_modules, $step_glob, $step_like
-- needs: nvtx_events
-- modules_forward_ops: for each sequence number of PyTorch's emit_nvtx op ranges (`aten::mm, seq = 77, ...`), per
-- process, the forward op that created it: the earliest range with that number (the backward node carrying the
-- same number runs later, on autograd's thread), with the module ranges around it on its own thread, outermost
-- first (module ranges and their chain as in modules_kernels). Backward kernels map to their forward op, and so to
-- its module, by seq.
WITH ops AS (
    SELECT pid, tid, start_ns, end_ns, name,
        CAST(regexp_extract(name, ', seq = ([0-9]+)', 1) AS BIGINT) AS seq
    FROM nvtx_events
    WHERE name LIKE '%, seq = %' AND end_ns IS NOT NULL
),
forward AS (
    SELECT pid, seq, arg_min(tid, start_ns) AS tid, arg_min(name, start_ns) AS name,
        min(start_ns) AS start_ns
    FROM ops
    GROUP BY pid, seq
),
modules AS (
    SELECT pid, tid, start_ns, end_ns, name, range_id
    FROM nvtx_events
    WHERE end_ns IS NOT NULL
      AND regexp_full_match(name, '[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*')
      AND NOT list_contains($not_modules, name)
      AND NOT coalesce(name GLOB $step_glob, false)
      AND NOT regexp_full_match(name, $step_like)
)
SELECT
    f.pid AS pid,                              -- process
    f.seq AS seq,                              -- the op's sequence number
    f.tid AS tid,                              -- thread of the forward op
    f.name AS op,                              -- the forward op range's full text (name, seq, op_id, sizes)
    string_agg(m.name, ' > ' ORDER BY m.start_ns, m.range_id) AS module  -- module ranges around it, outermost first
FROM forward AS f
LEFT JOIN modules AS m
  ON m.pid = f.pid AND m.tid = f.tid AND m.start_ns <= f.start_ns AND f.start_ns < m.end_ns
GROUP BY f.pid, f.seq, f.tid, f.name
ORDER BY f.pid, f.seq
