-- name: _range_durations
-- kind: view
-- params: none
-- needs: _nvtx_ranges
-- _range_durations: how often each NVTX range duration occurs, per range name and style: the distributions that
-- `diff` and `runs add` compare when no attribution is asked (sql/diff/range_durations.sql names them). The
-- columnar cache stores it, so a warm `runs add` reads a few hundred rows instead of naming every range instance.
SELECT
    name,                                      -- range name ('domain:text')
    style,                                     -- PushPop or StartEnd
    duration_ns,                               -- one range duration (ns)
    count(*) AS instances                      -- instances of this name and style that lasted exactly this long
FROM _nvtx_ranges
GROUP BY name, style, duration_ns
