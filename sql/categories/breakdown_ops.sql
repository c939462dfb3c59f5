-- name: breakdown_ops
-- kind: query
-- params: $attribution, $device, $end_ns, $exclude_range_name, $match, $memory_ops, $name_kind, $pid, $range_name, $start_ns, $steady_after_ns, $steady_range, $steady_warmup, $stream
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, graph_executions, kernels_in_range, memcpy, memset, shown_name_id, steady_ops, strings
-- breakdown_ops: the GPU operations a breakdown covers: one row per kernel, whole CUDA graph execution (label
-- '[CUDA graph N]', classified by the rules like a kernel name), memcpy and memset that passes the filters. categories/data.py creates it as the temp view _breakdown_ops (read by breakdown_by_name*.sql),
-- or, with --by range, as _breakdown_base under breakdown_range_ops.sql.
-- Parameters (NULL filters nothing), as in kernels_in:
--   $name_kind                 'demangled' | 'short' | 'mangled': the kernel name shown (label_id)
--   $device, $stream, $pid     exact matches
--   $start_ns, $end_ns         keep operations that start in [start_ns, end_ns)
--   $match                     regular expression searched in the shown name; memcpy/memset are matched by their
--                              label, e.g. '[CUDA memcpy Host-to-Device]', '[CUDA memset]'
--   $range_name, $exclude_range_name, $attribution   keep kernels in / not in an NVTX range (kernels_in_range)
--   $memory_ops                true: include memcpy and memset (category memory); false: kernels only. The caller
--                              passes false with a range filter: kernels_in_range places kernels only
--   $steady_range, $steady_warmup, $steady_after_ns   the steady state (nsys_analytics/nvtx/steady.py): keep only
--                              the operations steady_ops gives; $steady_range NULL keeps every operation
WITH steady AS (  -- each kind's part is matched alone: a hash of every steady operation to match the copies
                  -- was 4 of 10 s of a 10 M-kernel breakdown
    SELECT kind, op_id FROM steady_ops($steady_range, $steady_warmup, $steady_after_ns)
),
kernel_ops AS (
    SELECT
        k.rowid AS op_id,
        k.start AS start_ns,
        k."end" AS end_ns,
        coalesce(k.deviceId, 0) AS device,
        (k.globalPid >> 24) & 16777215 AS pid,
        k.correlationId AS correlation_id,
        k.demangledName AS name_id,
        shown_name_id($name_kind, k.demangledName, k.shortName, k.mangledName) AS label_id
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    WHERE ($device IS NULL OR k.deviceId = $device)
      AND ($stream IS NULL OR k.streamId = $stream)
      AND ($pid IS NULL OR (k.globalPid >> 24) & 16777215 = $pid)
      AND ($start_ns IS NULL OR k.start >= $start_ns)
      AND ($end_ns IS NULL OR k.start < $end_ns)
      AND ($range_name IS NULL
           OR k.rowid IN (SELECT kernel_id FROM kernels_in_range($range_name, $attribution)))
      AND ($exclude_range_name IS NULL
           OR k.rowid NOT IN (SELECT kernel_id FROM kernels_in_range($exclude_range_name, $attribution)))
      AND ($steady_range IS NULL OR k.rowid IN (SELECT op_id FROM steady WHERE kind = 'kernel'))
),
graph_ops AS (  -- graphs traced whole: their kernels are not in the kernel table (graph_executions)
    SELECT op_id, start_ns, end_ns, coalesce(device, 0) AS device, pid, correlation_id, name AS label
    FROM graph_executions
    WHERE $range_name IS NULL AND $exclude_range_name IS NULL  -- the NVTX range filters place kernels only
      AND ($device IS NULL OR device = $device)
      AND ($stream IS NULL OR stream = $stream)
      AND ($pid IS NULL OR pid = $pid)
      AND ($start_ns IS NULL OR start_ns >= $start_ns)
      AND ($end_ns IS NULL OR start_ns < $end_ns)
      AND ($match IS NULL OR regexp_matches(name, $match))
      AND ($steady_range IS NULL OR op_id IN (SELECT op_id FROM steady WHERE kind = 'graph'))
),
memory_ops AS (
    SELECT start_ns, end_ns, device, stream, pid, correlation_id, 'memcpy' AS rule, op_id,
        '[CUDA memcpy ' || CASE copy_kind_id
        WHEN 1 THEN 'Host-to-Device' WHEN 2 THEN 'Device-to-Host' WHEN 3 THEN 'Host-to-Array'
        WHEN 4 THEN 'Array-to-Host' WHEN 5 THEN 'Array-to-Array' WHEN 6 THEN 'Array-to-Device'
        WHEN 7 THEN 'Device-to-Array' WHEN 8 THEN 'Device-to-Device' WHEN 9 THEN 'Host-to-Host'
        WHEN 10 THEN 'Peer-to-Peer' WHEN 11 THEN 'Unified Host-to-Device' WHEN 12 THEN 'Unified Device-to-Host'
        WHEN 13 THEN 'Unified Device-to-Device' ELSE 'Unknown' END || ']' AS label
    FROM memcpy
    UNION ALL
    SELECT start_ns, end_ns, device, stream, pid, correlation_id, 'memset', op_id, '[CUDA memset]' FROM memset
)
SELECT
    'kernel' AS kind,                          -- 'kernel', 'graph', 'memcpy' or 'memset'
    op_id,                                     -- row id in the operation's nsys table
    start_ns,                                  -- GPU start (ns)
    end_ns,                                    -- GPU end (ns)
    device,                                    -- CUDA device id
    pid,                                       -- process
    correlation_id,                            -- links to the launching CUDA API call
    name_id,                                   -- strings.id of the demangled kernel name; NULL for memcpy/memset
    label_id,                                  -- strings.id of the name shown ($name_kind); NULL for memcpy/memset
    NULL::VARCHAR AS label,                    -- '[CUDA graph N]', the memcpy/memset label; NULL for kernels
    NULL::VARCHAR AS rule,                     -- 'memcpy' or 'memset'; NULL for kernels and graphs (classified by name)
    ''::VARCHAR AS part                        -- NVTX range (breakdown_range_ops.sql); '' here
FROM kernel_ops
WHERE $match IS NULL OR label_id IN (SELECT id FROM strings WHERE regexp_matches(value, $match))
UNION ALL
SELECT 'graph', op_id, start_ns, end_ns, device, pid, correlation_id, NULL, NULL, label, NULL, '' FROM graph_ops
UNION ALL
SELECT rule, op_id, start_ns, end_ns, coalesce(device, 0), pid, correlation_id, NULL, NULL, label, rule, ''
FROM memory_ops
WHERE $memory_ops
  AND ($device IS NULL OR device = $device)
  AND ($stream IS NULL OR stream = $stream)
  AND ($pid IS NULL OR pid = $pid)
  AND ($start_ns IS NULL OR start_ns >= $start_ns)
  AND ($end_ns IS NULL OR start_ns < $end_ns)
  AND ($match IS NULL OR regexp_matches(label, $match))
  AND ($steady_range IS NULL OR (rule, op_id) IN (SELECT kind, op_id FROM steady WHERE kind IN ('memcpy', 'memset')))
