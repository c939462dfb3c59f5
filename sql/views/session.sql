-- session: one row describing the capture and the export.
-- Needs: compat.META_DATA_EXPORT (2023.3+), compat.EXPORT_META_DATA (2022.1-2023.2), compat.ANALYSIS_DETAILS,
-- compat.TARGET_INFO_SESSION_START_TIME, kernels, cuda_api. Before 2022 no metadata: versions are NULL and the
-- capture window is the span of the recorded events.
WITH meta AS (
    SELECT name, value FROM compat.META_DATA_EXPORT
    UNION ALL
    SELECT name, value FROM compat.EXPORT_META_DATA
),
events AS (  -- each bound per table: one column scan each, no union of every event
    SELECT least((SELECT min(start_ns) FROM kernels), (SELECT min(start_ns) FROM cuda_api)) AS first_ns,
           greatest((SELECT max(end_ns) FROM kernels), (SELECT max(end_ns) FROM cuda_api)) AS last_ns
)
SELECT
    (SELECT max(value) FROM meta WHERE name = 'EXPORT_PRODUCT_VERSION') AS nsys_version, -- nsys that exported
    (SELECT max(value) FROM meta WHERE name = 'EXPORT_SCHEMA_VERSION') AS schema_version, -- export schema
    coalesce((SELECT min(startTime) FROM compat.ANALYSIS_DETAILS), e.first_ns) AS capture_start_ns, -- start
    coalesce((SELECT max(stopTime) FROM compat.ANALYSIS_DETAILS), e.last_ns) AS capture_end_ns, -- end (ns)
    coalesce((SELECT max(duration) FROM compat.ANALYSIS_DETAILS), e.last_ns - e.first_ns) AS duration_ns, -- length
    (SELECT min(utcEpochNs) FROM compat.TARGET_INFO_SESSION_START_TIME) AS start_utc_ns, -- wall-clock start
    (SELECT count(*) FROM compat.ANALYSIS_DETAILS) = 0 AS window_from_events -- true: no capture record
FROM events AS e
