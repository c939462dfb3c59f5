-- bad_kernel_rows: kernel rows that no duration can come from, counted once per version of a profile; the
-- normalized views leave them out (Profile builds compat.CUPTI_ACTIVITY_KIND_KERNEL without them).
-- Needs: compat._all_kernels (every row of the raw kernel table, compat columns).
-- Two rows that repeat each other have the same hash of start, end, device and stream, so `repeat_candidates` = 0
-- proves there is no repeat; otherwise kernel_repeats.sql counts the exact ones.
SELECT
    count(*) FILTER (start IS NULL OR "end" IS NULL) AS no_end,  -- rows without a start or an end
    count(*) FILTER ("end" < start) AS negative,                  -- rows that end before they start
    count(*) FILTER ("end" >= start)
        - count(DISTINCT hash(start, "end", deviceId, streamId)) FILTER ("end" >= start)
        AS repeat_candidates                                      -- 0: no row repeats another
FROM compat._all_kernels
