-- name: gpu_time_util
-- kind: query
-- params: $chunks, $rows, $threshold_pct
-- needs: _diag.gpu_ops, _diag.spans
-- gpu_time_util: stretches of a process/device's GPU span whose time utilization is below a threshold,
-- = `nsys analyze --rule gpu_time_util`. The span (first start to last end) is cut into $chunks equal chunks
-- (ceil-rounded length); a chunk's in-use % sums the overlap of every operation, so concurrent streams may
-- add up past 100. Consecutive low chunks are merged with their length-weighted average.
-- A chunk's summed overlap is S(chunk end) - S(chunk start), where S(t) = sum over operations of
-- min(end, t) - min(start, t), the operation time before t. At a chunk boundary t_k, S(t_k) = D_k - t_k * N_k,
-- D_k and N_k summing, over the chunks before k, the ends minus the starts that fall in them (D: their times, N:
-- their counts): one grouping of the operations by the chunk their start and their end fall in, then a running sum
-- over the chunks; no operation is cut or joined to the chunks. Integer arithmetic throughout (the chunk bounds are
-- whole nanoseconds), so the sums are exact.
-- Params: $chunks (1..1000); $threshold_pct: report chunks below this in-use %; $rows: row limit (NULL: all).
WITH
    span AS (
        SELECT pid, device, context, start_ns, end_ns,
               CAST(ceil(CAST(end_ns - start_ns AS DOUBLE) / $chunks) AS BIGINT) AS chunk_ns
        FROM _diag.spans
    ),
    chunks AS (
        SELECT s.pid, s.device, s.context, c.i AS chunk,
               s.start_ns + c.i * s.chunk_ns AS cstart,
               least(s.start_ns + c.i * s.chunk_ns + s.chunk_ns, s.end_ns) AS cend
        FROM span AS s, range(0, $chunks) AS c(i)
        WHERE s.start_ns + c.i * s.chunk_ns < least(s.start_ns + c.i * s.chunk_ns + s.chunk_ns, s.end_ns)
    ),
    marks AS (  -- per chunk: the starts and the ends that fall in it, counted and summed (one grouping set each)
        SELECT o.pid, o.device,
               (o.start_ns - s.start_ns) // s.chunk_ns AS start_chunk,
               (o.end_ns - s.start_ns) // s.chunk_ns AS end_chunk,
               count(*) AS n, sum(o.start_ns) AS start_sum, sum(o.end_ns) AS end_sum
        FROM _diag.gpu_ops AS o
        JOIN span AS s ON s.pid = o.pid AND s.device = o.device AND s.chunk_ns > 0
        GROUP BY GROUPING SETS ((o.pid, o.device, start_chunk), (o.pid, o.device, end_chunk))
    ),
    steps AS (  -- per chunk: ends minus starts falling in it, times (d) and counts (n)
        SELECT pid, device, coalesce(start_chunk, end_chunk) AS chunk,
               sum(CASE WHEN start_chunk IS NULL THEN end_sum ELSE -start_sum END) AS d,
               sum(CASE WHEN start_chunk IS NULL THEN n ELSE -n END) AS n
        FROM marks
        GROUP BY ALL
    ),
    curve AS (  -- S at each chunk start; S at the span end is every operation's time (D over every chunk)
        SELECT c.*,
               coalesce(sum(st.d) OVER before, 0) - c.cstart * coalesce(sum(st.n) OVER before, 0) AS s_start,
               t.d AS s_end_of_span
        FROM chunks AS c
        JOIN (SELECT pid, device, sum(d) AS d FROM steps GROUP BY pid, device) AS t
          ON t.pid = c.pid AND t.device = c.device
        LEFT JOIN steps AS st ON st.pid = c.pid AND st.device = c.device AND st.chunk = c.chunk
        WINDOW before AS (PARTITION BY c.pid, c.device ORDER BY c.chunk ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ),
    busy AS (
        SELECT pid, device, chunk,
               CAST(lead(s_start, 1, s_end_of_span) OVER (PARTITION BY pid, device ORDER BY chunk) - s_start
                    AS DOUBLE) AS busy_ns
        FROM curve
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
