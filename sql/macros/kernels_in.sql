-- kernels_in(name_kind, want_device, want_stream, want_pid, from_ns, to_ns, name_regex): table macro, the
-- kernels that pass the common report filters, with the name the user chose. NULL arguments filter nothing.
-- Needs: kernels.
--   name_kind    'demangled' | 'short' | 'mangled' (mangled falls back to demangled when absent, as nsys does)
--   want_device, want_stream, want_pid   exact matches
--   from_ns, to_ns                       keep kernels that start in [from_ns, to_ns)
--   name_regex                           regular expression searched in the chosen name
SELECT *
FROM (
    SELECT
        *,
        CASE name_kind
            WHEN 'short' THEN coalesce(short_name_id, name_id)
            WHEN 'mangled' THEN coalesce(mangled_name_id, name_id)
            ELSE name_id END AS group_name_id,  -- string id of the chosen name
        CASE name_kind
            WHEN 'short' THEN coalesce(short_name, name)
            WHEN 'mangled' THEN coalesce(mangled_name, name)
            ELSE name END AS group_name         -- the chosen name
    FROM kernels
    WHERE (want_device IS NULL OR device = want_device)
      AND (want_stream IS NULL OR stream = want_stream)
      AND (want_pid IS NULL OR pid = want_pid)
      AND (from_ns IS NULL OR start_ns >= from_ns)
      AND (to_ns IS NULL OR start_ns < to_ns)
)
WHERE name_regex IS NULL OR regexp_matches(group_name, name_regex)
