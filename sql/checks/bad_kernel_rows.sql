-- name: bad_kernel_rows
-- kind: check
-- params: $with_names, $may_repeat
-- needs: compat._all_kernels
-- bad_kernel_rows: kernel rows that no duration can come from, counted once per version of a profile; the
-- normalized views leave them out (Profile builds compat.CUPTI_ACTIVITY_KIND_KERNEL without them). Each row is
-- counted under its first reason only. 4611686018427387904 = 2^62 ns (raw_schema.TIME_LIMIT_NS): a time no clock
-- gives, which would overflow 64-bit sums and windows.
-- Needs: compat._all_kernels (every row of the raw kernel table, compat columns).
-- $may_repeat: kernel_shared_starts.sql found rows sharing a start. Two rows that repeat each other have the same
-- hash of start, end, device and stream, so `repeat_candidates` = 0 proves there is no repeat; otherwise
-- kernel_repeats.sql counts the exact ones. False: no hash is computed (0).
-- $with_names: also the string ids the sound rows name, in the same scan (a profile read directly checks its names
-- against StringIds: a second scan of the export cost 1.5 s at 10 M kernels); false: none (NULL).
WITH rows AS (
    SELECT
        start IS NULL OR "end" IS NULL AS no_end,
        deviceId IS NULL OR streamId IS NULL OR demangledName IS NULL AS incomplete,
        "end" < start AS negative,
        start <= -4611686018427387904 OR start >= 4611686018427387904
            OR "end" <= -4611686018427387904 OR "end" >= 4611686018427387904 AS out_of_range,
        CASE WHEN $may_repeat THEN hash(start, "end", deviceId, streamId) END AS repeat_key,
        -- without $with_names the name columns fold to NULL and are not read
        CASE WHEN $with_names THEN demangledName END AS demangled_id,
        CASE WHEN $with_names THEN shortName END AS short_id,
        CASE WHEN $with_names THEN mangledName END AS mangled_id
    FROM compat._all_kernels
),
flagged AS (SELECT *, NOT (no_end OR incomplete OR negative OR out_of_range) AS sound FROM rows)
SELECT
    count(*) FILTER (no_end) AS no_end,                           -- rows without a start or an end
    count(*) FILTER (NOT no_end AND incomplete) AS incomplete,    -- rows without a device, a stream or a name
    count(*) FILTER (NOT no_end AND NOT incomplete AND negative) AS negative, -- rows that end before they start
    count(*) FILTER (NOT no_end AND NOT incomplete AND NOT negative AND out_of_range)
        AS out_of_range,                                          -- rows with a time beyond 2^62 ns
    count(repeat_key) FILTER (sound) - count(DISTINCT repeat_key) FILTER (sound)
        AS repeat_candidates,                                     -- 0: no row repeats another
    list_distinct(flatten([list(DISTINCT demangled_id) FILTER (sound), list(DISTINCT short_id) FILTER (sound),
                           list(DISTINCT mangled_id) FILTER (sound)])) AS named_ids -- string ids the sound rows name
FROM flagged
