-- name: session
-- kind: view
-- params: none
-- needs: compat.ANALYSIS_DETAILS, compat.CUPTI_ACTIVITY_KIND_DRIVER, compat.CUPTI_ACTIVITY_KIND_KERNEL, compat.CUPTI_ACTIVITY_KIND_RUNTIME, compat.EXPORT_META_DATA, compat.META_DATA_EXPORT, compat.TARGET_INFO_SESSION_START_TIME
-- session: one row describing the capture and the export.
-- Needs: compat.META_DATA_EXPORT (2023.3+), compat.EXPORT_META_DATA (2022.1-2023.2), compat.ANALYSIS_DETAILS,
-- compat.TARGET_INFO_SESSION_START_TIME, compat.CUPTI_ACTIVITY_KIND_KERNEL / _RUNTIME / _DRIVER. Before 2022 no
-- metadata: versions are NULL and the capture window is the span of the recorded kernels and API calls.
WITH meta AS (
    SELECT name, value FROM compat.META_DATA_EXPORT
    UNION ALL
    SELECT name, value FROM compat.EXPORT_META_DATA
),
spans AS (  -- the span of each table: one scan of two columns, made only when there is no capture record
    SELECT min(start) AS first_ns, max("end") AS last_ns FROM compat.CUPTI_ACTIVITY_KIND_KERNEL
    WHERE NOT EXISTS (SELECT 1 FROM compat.ANALYSIS_DETAILS)
    UNION ALL
    SELECT min(start), max("end") FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME
    WHERE NOT EXISTS (SELECT 1 FROM compat.ANALYSIS_DETAILS)
    UNION ALL
    SELECT min(start), max("end") FROM compat.CUPTI_ACTIVITY_KIND_DRIVER
    WHERE NOT EXISTS (SELECT 1 FROM compat.ANALYSIS_DETAILS)
),
events AS (SELECT min(first_ns) AS first_ns, max(last_ns) AS last_ns FROM spans)
SELECT
    (SELECT max(value) FROM meta WHERE name = 'EXPORT_PRODUCT_VERSION') AS nsys_version, -- nsys that exported
    (SELECT max(value) FROM meta WHERE name = 'EXPORT_SCHEMA_VERSION') AS schema_version, -- export schema
    coalesce((SELECT min(startTime) FROM compat.ANALYSIS_DETAILS), e.first_ns) AS capture_start_ns, -- start
    coalesce((SELECT max(stopTime) FROM compat.ANALYSIS_DETAILS), e.last_ns) AS capture_end_ns, -- end (ns)
    coalesce((SELECT max(duration) FROM compat.ANALYSIS_DETAILS), e.last_ns - e.first_ns) AS duration_ns, -- length
    (SELECT min(utcEpochNs) FROM compat.TARGET_INFO_SESSION_START_TIME) AS start_utc_ns, -- wall-clock start
    (SELECT count(*) FROM compat.ANALYSIS_DETAILS) = 0 AS window_from_events -- true: no capture record
FROM events AS e
