-- kernel_durations: how often each kernel duration occurs, per demangled and short kernel name; the distributions
-- `diff` and the run catalog compare, and from which they compute each kernel's total, mean, median, min, max and
-- standard deviation exactly (tests check them against `kernels`, = cuda_gpu_kern_sum).
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, strings. One scan of the kernel table; the names are joined after
-- grouping. Short names fall back to the demangled name where the export has none, as kernels_in does.
WITH pairs AS (
    SELECT
        k.demangledName AS demangled_id,
        coalesce(k.shortName, k.demangledName) AS short_id,
        k."end" - k.start AS duration_ns,
        count(*) AS n
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    GROUP BY ALL
)
SELECT
    d.value AS demangled,                      -- demangled kernel name (nsys' default Name)
    s.value AS short,                          -- short name (nsys' :base)
    p.duration_ns,                             -- one kernel duration (ns)
    p.n AS instances                           -- kernels of this name that ran exactly this long
FROM pairs AS p
LEFT JOIN strings AS d ON d.id = p.demangled_id
LEFT JOIN strings AS s ON s.id = p.short_id
ORDER BY demangled, short, duration_ns
