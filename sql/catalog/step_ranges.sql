-- name: step_ranges
-- kind: query
-- params: $names
-- needs: _nvtx_ranges
-- step_ranges: the instances of the step ranges (the step-like NVTX range family that `runs gate` and `diff` name,
-- e.g. train_loop:step_*), in process and start order: catalog/steps.py places each GPU operation in the one whose
-- [start, end] holds the start of its launching call.
-- Parameters: $names (list of the step ranges' full names).
SELECT
    global_pid,                                -- nsys' global process id
    start_ns,                                  -- the step's start (ns)
    end_ns                                     -- its end (ns)
FROM _nvtx_ranges
WHERE list_contains($names, name)
ORDER BY global_pid, start_ns, end_ns
