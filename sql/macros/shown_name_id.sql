-- name: shown_name_id
-- kind: scalar_macro
-- params: name_kind, demangled_id, short_id, mangled_id
-- needs: none
-- shown_name_id(name_kind, demangled_id, short_id, mangled_id): scalar macro, the strings.id of the kernel name a
-- report shows: name_kind 'short' or 'mangled' picks that name, falling back to the demangled one where the export
-- lacks it (as nsys does); anything else, the demangled name. Used by every report with a name kind option.
CASE name_kind
    WHEN 'short' THEN coalesce(short_id, demangled_id)
    WHEN 'mangled' THEN coalesce(mangled_id, demangled_id)
    ELSE demangled_id END
