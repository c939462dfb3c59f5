-- name: ncu_info
-- kind: query
-- params: none
-- needs: _ncu_info_load
-- ncu_info: facts about the report as key/value rows: source file and kind, Nsight Compute version, command line.
SELECT
    key::VARCHAR AS key,                       -- source, source_kind, tool_version, reader_version, command_line, ...
    text::VARCHAR AS value                     -- its value
FROM _ncu_info_load
ORDER BY key
