-- name: breakdown_capture
-- kind: query
-- params: none
-- needs: compat.ANALYSIS_DETAILS
-- breakdown_capture: the capture window that `--basis wall` divides by, when no --start/--end is given.
-- Needs: compat.ANALYSIS_DETAILS (nsys 2022+; NULLs before, and the caller uses the operations' span instead).
SELECT
    min(startTime) AS start_ns,                -- capture start (ns)
    max(stopTime) AS end_ns                    -- capture end (ns)
FROM compat.ANALYSIS_DETAILS
