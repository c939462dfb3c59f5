-- name: kernel_shared_starts
-- kind: check
-- params: none
-- needs: compat._all_kernels
-- kernel_shared_starts: kernel rows whose start an earlier row in start order also has (each row after the first
-- of a start). Rows that repeat each other share a start, so 0 proves there is no repeat: one sort of the starts,
-- 0.3 s at 10 M kernels, where a hash of every row's start, end, device and stream took 0.9 s. Every row takes
-- part, bad ones too: they can only add to the count, and bad_kernel_rows.sql then checks the sound rows alone.
SELECT count(*) FILTER (start = previous) AS shared  -- a NULL start shares nothing
FROM (SELECT start, lag(start) OVER (ORDER BY start) AS previous FROM compat._all_kernels)
