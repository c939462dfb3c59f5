-- name: ncu_summary
-- kind: query
-- params: none
-- needs: ncu_kernels, ncu_metrics
-- ncu_summary: one row per profiled result with the headline metrics of ncu's Speed Of Light, Launch Statistics and
-- Occupancy sections, in base units.  A metric the report lacks gives NULL (every
-- set from `basic` up has them all). `nsys-analytics ncu REPORT` shows this view; the metric behind each column is
-- the one named in its FILTER (nsys_analytics/ncu/metrics.py reads them from here).
WITH headline AS (
    SELECT
        kernel_id,
        max(value) FILTER (WHERE metric = 'gpu__time_duration.sum') AS duration_ns,
        max(value) FILTER (WHERE metric = 'sm__throughput.avg.pct_of_peak_sustained_elapsed') AS sm_throughput_pct,
        max(value) FILTER (WHERE metric = 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed') AS memory_throughput_pct,
        max(value) FILTER (WHERE metric = 'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed') AS dram_throughput_pct,
        max(value) FILTER (WHERE metric = 'l1tex__throughput.avg.pct_of_peak_sustained_active') AS l1_throughput_pct,
        max(value) FILTER (WHERE metric = 'lts__throughput.avg.pct_of_peak_sustained_elapsed') AS l2_throughput_pct,
        max(value) FILTER (WHERE metric = 'sm__warps_active.avg.pct_of_peak_sustained_active') AS achieved_occupancy_pct,
        max(value) FILTER (WHERE metric = 'sm__maximum_warps_per_active_cycle_pct') AS theoretical_occupancy_pct,
        max(value) FILTER (WHERE metric = 'launch__registers_per_thread') AS registers_per_thread,
        max(value) FILTER (WHERE metric = 'launch__shared_mem_per_block') AS shared_mem_per_block_bytes,
        max(value) FILTER (WHERE metric = 'launch__waves_per_multiprocessor') AS waves_per_sm,
        max(value) FILTER (WHERE metric = 'gpc__cycles_elapsed.max') AS elapsed_cycles,
        max(value) FILTER (WHERE metric = 'gpc__cycles_elapsed.avg.per_second') AS sm_frequency_hz,
        max(value) FILTER (WHERE metric = 'dram__cycles_elapsed.avg.per_second') AS dram_frequency_hz
    FROM ncu_metrics
    GROUP BY kernel_id
)
SELECT
    k.id AS id,                                -- ncu_kernels.id
    k.function AS kernel,                      -- bare kernel function name
    k.nvtx_range AS nvtx_range,                -- innermost NVTX push/pop range
    k.grid_x || 'x' || k.grid_y || 'x' || k.grid_z AS grid, -- grid size, blocks (x*y*z)
    k.block_x || 'x' || k.block_y || 'x' || k.block_z AS block, -- block size, threads (x*y*z)
    h.duration_ns AS duration_ns,              -- GPU time of the kernel (gpu__time_duration.sum)
    h.sm_throughput_pct AS sm_throughput_pct,  -- Compute (SM) Throughput, % of peak
    h.memory_throughput_pct AS memory_throughput_pct, -- Memory Throughput, % of peak
    h.dram_throughput_pct AS dram_throughput_pct, -- DRAM Throughput, % of peak
    h.l1_throughput_pct AS l1_throughput_pct,  -- L1/TEX Cache Throughput, % of peak
    h.l2_throughput_pct AS l2_throughput_pct,  -- L2 Cache Throughput, % of peak
    h.achieved_occupancy_pct AS achieved_occupancy_pct, -- Achieved Occupancy, % of the SM's warps
    h.theoretical_occupancy_pct AS theoretical_occupancy_pct, -- Theoretical Occupancy, %
    h.registers_per_thread AS registers_per_thread, -- Registers Per Thread
    h.shared_mem_per_block_bytes AS shared_mem_per_block_bytes, -- Shared Memory per block, bytes
    h.waves_per_sm AS waves_per_sm,            -- Waves Per SM
    h.elapsed_cycles AS elapsed_cycles,        -- Elapsed Cycles (GPC, max)
    h.sm_frequency_hz AS sm_frequency_hz,      -- SM (GPC) Frequency, Hz
    h.dram_frequency_hz AS dram_frequency_hz   -- DRAM Frequency, Hz
FROM ncu_kernels AS k
LEFT JOIN headline AS h ON h.kernel_id = k.id
ORDER BY k.id
