-- name: _op_ranges
-- kind: view
-- params: none
-- needs: _op_ranges_gpu, _op_ranges_launch
-- _op_ranges: every GPU operation with each NVTX range it belongs to, per attribution mode; an operation in no
-- range has one row with range_id NULL. No range join over all pairs: ranges are listed per time bucket
-- (_range_buckets) and an operation meets only the ranges of its own bucket(s). Filter on attribution (and kind): only
-- that part is computed.
-- Needs: _op_ranges_launch (thread, process), _op_ranges_gpu. Columns: those of _op_ranges_launch.
--   thread, process  the launching API call [start, end] lies inside the range (nsys' rule; thread: on the
--                    range's thread, process: on any thread of its process)
--   gpu              the operation's GPU execution [start, end] overlaps the range (same process)
SELECT * FROM _op_ranges_launch
UNION ALL
SELECT * FROM _op_ranges_gpu
