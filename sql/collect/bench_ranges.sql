-- name: bench_ranges
-- kind: query
-- params: $domain
-- needs: _nvtx_ranges, _op_ranges
-- bench_ranges: the GPU time of each benchmark run (one range instance in the benchmark's NVTX domain), per
-- annotation inside it.  Parameters: $domain (the benchmark's domain).
-- A GPU operation (kernel, memcpy, memset) belongs to the run whose window its launch call falls in, on any
-- thread of the process (process attribution: autograd's kernels count), and to the innermost range of another
-- domain whose text ends in a configuration (`name[K=V,...]`, what `annotate` writes); one outside such a range
-- belongs to the run's own text (`function[K=V,...]`).
WITH placed AS (
    SELECT o.kind, o.op_id, o.range_start_ns, o.start_ns, o.end_ns, o.duration_ns, r.range_id, r.text, r.domain
    FROM _op_ranges AS o
    JOIN _nvtx_ranges AS r ON r.range_id = o.range_id
    WHERE o.attribution = 'process'
),
runs AS (
    SELECT * FROM placed WHERE domain = $domain
),
annotated AS (
    SELECT kind, op_id, arg_max(text, range_start_ns) AS text
    FROM placed
    WHERE domain IS DISTINCT FROM $domain AND regexp_matches(text, '\[[^\[\]]*\]$')
    GROUP BY kind, op_id
)
SELECT
    u.range_id AS run_range_id,                -- the run's range (NVTX_EVENTS row id)
    u.range_start_ns AS run_start_ns,          -- when the run started (ns)
    coalesce(a.text, u.text) AS range_text,    -- annotation and configuration: 'name[K=V,...]'
    count(*) FILTER (WHERE u.kind = 'kernel') AS kernels, -- kernels of this annotation in the run
    coalesce(sum(u.duration_ns) FILTER (WHERE u.kind = 'kernel'), 0) AS kernel_time_ns, -- their durations summed (ns)
    max(u.end_ns) - min(u.start_ns) AS gpu_span_ns -- first GPU operation's start to the last one's end (ns), copies
                                               -- and memsets included, as nsys' nvtx_gpu_proj_trace projects a range
FROM runs AS u
LEFT JOIN annotated AS a ON a.kind = u.kind AND a.op_id = u.op_id
GROUP BY u.range_id, u.range_start_ns, coalesce(a.text, u.text)
ORDER BY run_start_ns, range_text
