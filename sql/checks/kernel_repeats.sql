-- name: kernel_repeats
-- kind: check
-- params: none
-- needs: compat._all_kernels
-- kernel_repeats: sound kernel rows that repeat an earlier row (lower rowid) in every column but rowid; run only
-- when bad_kernel_rows finds candidates. Only rows sharing start, end, device and stream are compared whole.
WITH valid AS (
    SELECT * FROM compat._all_kernels  -- the sound rows, as bad_rows.VALID_KERNEL
    WHERE start IS NOT NULL AND "end" IS NOT NULL AND "end" >= start
        AND deviceId IS NOT NULL AND streamId IS NOT NULL AND demangledName IS NOT NULL
        AND start > -4611686018427387904 AND "end" < 4611686018427387904
),
suspects AS (
    SELECT * EXCLUDE (rowid)
    FROM valid
    QUALIFY count(*) OVER (PARTITION BY start, "end", deviceId, streamId) > 1
)
SELECT
    count(*) - (SELECT count(*) FROM (SELECT DISTINCT * FROM suspects)) AS duplicates  -- exact repeats
FROM suspects
