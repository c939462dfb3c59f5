-- name: _kernel_durations
-- kind: view
-- params: none
-- needs: compat.CUPTI_ACTIVITY_KIND_KERNEL
-- _kernel_durations: how often each kernel duration occurs, per (demangled name, short name): the distributions
-- that `diff` and `runs add` compare (sql/diff/kernel_durations.sql names them). The columnar cache stores it (one
-- grouping of every kernel, made once), so a warm `runs add` reads a few thousand rows instead of every kernel.
-- Short names fall back to the demangled name where the export has none,
-- as kernels_in does.
SELECT
    demangledName AS demangled_id,             -- strings.id of the demangled name
    coalesce(shortName, demangledName) AS short_id, -- strings.id of the short name
    "end" - start AS duration_ns,              -- one kernel duration (ns)
    count(*) AS instances                      -- kernels of these names that ran exactly this long
FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
GROUP BY ALL
