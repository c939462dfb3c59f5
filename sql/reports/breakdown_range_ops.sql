-- breakdown_range_ops: the operations of _breakdown_base (breakdown_ops.sql) attributed to NVTX ranges by the
-- process rule: an operation belongs to a range when the CUDA API call that launched it started inside the
-- range's window, on any thread of the same process (backward kernels launched by autograd's own thread land in
-- `backward`). One row per operation, with `part` = the id of the set of chosen ranges it belongs to (in
-- _range_sets); operations in none of them are left out. breakdown_range_explode.sql gives one row per range.
-- Needs: _breakdown_base, _range_segments (loaded by reports/breakdown_ranges.py),
-- compat.CUPTI_ACTIVITY_KIND_RUNTIME, compat.CUPTI_ACTIVITY_KIND_DRIVER. No parameters.
-- No range join: the chosen ranges are cut into disjoint segments, each with the set of ranges open over it;
-- each CUDA API call finds its segment with one ASOF join on its start, and operations join their call by
-- (process, correlation id), unique per process among runtime calls and among driver calls.
WITH calls AS (
    SELECT (globalTid >> 24) & 16777215 AS pid, correlationId AS correlation_id, start AS launch_ns
    FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME
    UNION ALL
    SELECT (globalTid >> 24) & 16777215, correlationId, start FROM compat.CUPTI_ACTIVITY_KIND_DRIVER
),
placed_calls AS (  -- the API calls made inside a chosen range, with the set of ranges open then
    SELECT c.pid, c.correlation_id, s.set_id
    FROM calls AS c
    ASOF JOIN _range_segments AS s ON s.pid = c.pid AND c.launch_ns >= s.start_ns
    WHERE c.launch_ns < s.end_ns AND c.correlation_id <> 0
)
SELECT
    o.start_ns AS start_ns,                    -- GPU start (ns)
    o.end_ns AS end_ns,                        -- GPU end (ns)
    o.device AS device,                        -- CUDA device id
    o.pid AS pid,                              -- process
    o.correlation_id AS correlation_id,        -- links to the launching CUDA API call
    o.name_id AS name_id,                      -- strings.id of the demangled kernel name; NULL for memcpy/memset
    o.label_id AS label_id,                    -- strings.id of the name shown; NULL for memcpy/memset
    o.label AS label,                          -- memcpy/memset label; NULL for kernels
    o.rule AS rule,                            -- 'memcpy' or 'memset'; NULL for kernels
    p.set_id::VARCHAR AS part                  -- _range_sets.set_id: the set of ranges it belongs to
FROM _breakdown_base AS o
JOIN placed_calls AS p USING (pid, correlation_id)
