-- kernel_durations: how many kernels of each name ran for each duration, the distribution that per-rank
-- summaries are merged from exactly (counts, sums, min, max, mean, median and standard deviation of the union).
-- Needs: kernels_in. Parameters: those of kernels_in ($name_kind, $device, $stream, $pid, $start_ns, $end_ns,
-- $match, $range_name, $exclude_range_name, $attribution).
SELECT
    group_name AS name,                        -- kernel name (demangled, short or mangled)
    duration_ns,                               -- one duration that occurs (ns)
    count(*) AS instances                      -- how many kernels of that name ran that long
FROM kernels_in($name_kind, $device, $stream, $pid, $start_ns, $end_ns, $match, range_name := $range_name,
                exclude_range_name := $exclude_range_name, range_mode := $attribution)
WHERE duration_ns IS NOT NULL
GROUP BY group_name, duration_ns
ORDER BY name, duration_ns
