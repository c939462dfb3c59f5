-- name: kernel_durations
-- kind: query
-- params: none
-- needs: _kernel_durations, strings
-- kernel_durations: how often each kernel duration occurs, per demangled and short kernel name; the distributions
-- `diff` and the run catalog compare, and from which they compute each kernel's total, mean, median, min, max and
-- standard deviation exactly (tests check them against `kernels`, = cuda_gpu_kern_sum).
-- Needs: _kernel_durations (one grouping of the kernel table, which the columnar cache stores), strings; the names
-- are joined after grouping.
SELECT
    d.value AS demangled,                      -- demangled kernel name (nsys' default Name)
    s.value AS short,                          -- short name (nsys' :base)
    p.duration_ns,                             -- one kernel duration (ns)
    p.instances                                -- kernels of this name that ran exactly this long
FROM _kernel_durations AS p
LEFT JOIN strings AS d ON d.id = p.demangled_id
LEFT JOIN strings AS s ON s.id = p.short_id
ORDER BY demangled, short, duration_ns
