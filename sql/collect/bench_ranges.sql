-- bench_ranges: the GPU time of each benchmark run (one range instance in the benchmark's NVTX domain), per
-- annotation inside it. Needs: kernel_ranges, _nvtx_ranges. Parameters: $domain (the benchmark's domain).
-- A kernel belongs to the run whose window its launch call falls in, on any thread of the process (process
-- attribution: autograd's kernels count), and to the innermost range of another domain whose text ends in a
-- configuration (`name[K=V,...]`, what `annotate` writes); a kernel outside such a range belongs to the run's
-- own text (`function[K=V,...]`).
WITH placed AS (
    SELECT k.kernel_id, k.range_start_ns, k.start_ns, k.end_ns, k.duration_ns, r.range_id, r.text, r.domain
    FROM kernel_ranges AS k
    JOIN _nvtx_ranges AS r ON r.range_id = k.range_id
    WHERE k.mode = 'process'
),
runs AS (
    SELECT * FROM placed WHERE domain = $domain
),
annotated AS (
    SELECT kernel_id, arg_max(text, range_start_ns) AS text
    FROM placed
    WHERE domain IS DISTINCT FROM $domain AND regexp_matches(text, '\[[^\[\]]*\]$')
    GROUP BY kernel_id
)
SELECT
    u.range_id AS run_range_id,                -- the run's range (NVTX_EVENTS row id)
    u.range_start_ns AS run_start_ns,          -- when the run started (ns)
    coalesce(a.text, u.text) AS range_text,    -- annotation and configuration: 'name[K=V,...]'
    count(*) AS kernels,                       -- kernels of this annotation in the run
    sum(u.duration_ns) AS kernel_time_ns,      -- their GPU durations summed (ns)
    max(u.end_ns) - min(u.start_ns) AS gpu_span_ns -- first kernel start to last kernel end (ns), as nvtx_gpu_proj
FROM runs AS u
LEFT JOIN annotated AS a ON a.kernel_id = u.kernel_id
GROUP BY u.range_id, u.range_start_ns, coalesce(a.text, u.text)
ORDER BY run_start_ns, range_text
