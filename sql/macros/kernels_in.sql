-- kernels_in(name_kind, want_device, want_stream, want_pid, from_ns, to_ns, name_regex): table macro, the
-- kernels that pass the common report filters, with the name the user chose. NULL arguments filter nothing.
-- Reads the compat table directly and joins only the chosen name: the summaries stay one scan and one join.
-- Needs: compat.CUPTI_ACTIVITY_KIND_KERNEL, strings.
--   name_kind    'demangled' | 'short' | 'mangled' (mangled falls back to demangled when absent, as nsys does)
--   want_device, want_stream, want_pid   exact matches
--   from_ns, to_ns                       keep kernels that start in [from_ns, to_ns)
--   name_regex                           regular expression searched in the chosen name
WITH chosen AS (
    SELECT
        k.start AS start_ns,
        k."end" - k.start AS duration_ns,
        k.gridX AS grid_x, k.gridY AS grid_y, k.gridZ AS grid_z,
        k.blockX AS block_x, k.blockY AS block_y, k.blockZ AS block_z,
        CASE name_kind
            WHEN 'short' THEN coalesce(k.shortName, k.demangledName)
            WHEN 'mangled' THEN coalesce(k.mangledName, k.demangledName)
            ELSE k.demangledName END AS group_name_id
    FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k
    WHERE (want_device IS NULL OR k.deviceId = want_device)
      AND (want_stream IS NULL OR k.streamId = want_stream)
      AND (want_pid IS NULL OR (k.globalPid >> 24) & 16777215 = want_pid)
      AND (from_ns IS NULL OR k.start >= from_ns)
      AND (to_ns IS NULL OR k.start < to_ns)
)
SELECT
    c.*,                                       -- start_ns, duration_ns, grid_*, block_*, group_name_id
    s.value AS group_name                      -- the chosen name
FROM chosen AS c
LEFT JOIN strings AS s ON s.id = c.group_name_id
WHERE name_regex IS NULL OR regexp_matches(s.value, name_regex)
