-- gpu_time_util: stretches of a process/device's GPU span whose time utilization is below a threshold,
-- = `nsys analyze --rule gpu_time_util`. The span (first start to last end) is cut into $chunks equal chunks
-- (ceil-rounded length); a chunk's in-use % sums the overlap of every operation, so concurrent streams may
-- add up past 100. Consecutive low chunks are merged with their length-weighted average.
-- Operations are cut at chunk boundaries: each in its first chunk, the few over several chunks in the others by
-- unnesting them (no interval join).
-- Needs: _diag.gpu_ops.
-- Params: $chunks (1..1000); $threshold_pct: report chunks below this in-use %; $rows: row limit (NULL: all).
WITH
    span AS (
        SELECT pid, device, context, start_ns, end_ns,
               ceil(CAST(end_ns - start_ns AS DOUBLE) / $chunks) AS chunk_ns
        FROM _diag.spans
    ),
    chunks AS (
        SELECT s.pid, s.device, s.context, c.i AS chunk,
               s.start_ns + c.i * s.chunk_ns AS cstart,
               least(s.start_ns + c.i * s.chunk_ns + s.chunk_ns, s.end_ns) AS cend
        FROM span AS s, range(0, $chunks) AS c(i)
        WHERE s.start_ns + c.i * s.chunk_ns < least(s.start_ns + c.i * s.chunk_ns + s.chunk_ns, s.end_ns)
    ),
    pieces AS (  -- each operation once per chunk it covers: its first chunk, and (a few) the others by unnest
        SELECT o.pid, o.device, o.start_ns, o.end_ns,
               CAST(floor((o.start_ns - s.start_ns) / s.chunk_ns) AS BIGINT) AS chunk
        FROM _diag.gpu_ops AS o
        JOIN span AS s ON s.pid = o.pid AND s.device = o.device AND s.chunk_ns > 0
        WHERE ceil((o.end_ns - s.start_ns) / s.chunk_ns) > floor((o.start_ns - s.start_ns) / s.chunk_ns)
        UNION ALL
        SELECT o.pid, o.device, o.start_ns, o.end_ns,
               unnest(range(CAST(floor((o.start_ns - s.start_ns) / s.chunk_ns) AS BIGINT) + 1,
                            CAST(ceil((o.end_ns - s.start_ns) / s.chunk_ns) AS BIGINT))) AS chunk
        FROM _diag.gpu_ops AS o
        JOIN span AS s ON s.pid = o.pid AND s.device = o.device AND s.chunk_ns > 0
        WHERE ceil((o.end_ns - s.start_ns) / s.chunk_ns) - floor((o.start_ns - s.start_ns) / s.chunk_ns) > 1
    ),
    busy AS (
        SELECT c.pid, c.device, c.chunk,
               sum(CAST(least(p.end_ns, c.cend) - greatest(p.start_ns, c.cstart) AS DOUBLE)) AS busy_ns
        FROM pieces AS p
        JOIN chunks AS c ON c.pid = p.pid AND c.device = p.device AND c.chunk = p.chunk
        WHERE p.start_ns < c.cend AND p.end_ns > c.cstart
        GROUP BY c.pid, c.device, c.chunk
    ),
    low AS (
        SELECT c.*, c.cend - c.cstart AS size_ns,
               coalesce(b.busy_ns, 0) / (c.cend - c.cstart) * 100 AS in_use_pct
        FROM chunks AS c
        LEFT JOIN busy AS b ON b.pid = c.pid AND b.device = c.device AND b.chunk = c.chunk
        WHERE coalesce(b.busy_ns, 0) / (c.cend - c.cstart) * 100 < $threshold_pct
    ),
    runs AS (
        SELECT *, chunk - row_number() OVER (PARTITION BY pid, device ORDER BY chunk) AS run
        FROM low
    ),
    merged AS (
        SELECT pid, device, any_value(context) AS context,
               CAST(min(cstart) AS BIGINT) AS start_ns,
               CAST(max(cend) - min(cstart) AS BIGINT) AS duration_ns,
               round(sum(size_ns * in_use_pct) / sum(size_ns), 1) AS in_use_pct
        FROM runs
        GROUP BY pid, device, run
    )
SELECT
    row_number() OVER (ORDER BY in_use_pct, duration_ns) AS row_num, -- rank, least used first
    in_use_pct,      -- time utilization (%, one decimal)
    duration_ns,     -- length of the merged chunks (ns)
    start_ns,        -- start of the first chunk (ns)
    pid,             -- process
    device,          -- CUDA device id
    context          -- CUDA context id
FROM merged
ORDER BY row_num
LIMIT $rows
