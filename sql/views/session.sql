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
events AS (  -- the span of the kernels and API calls, bound per table: one column scan each, no join or union
    SELECT least((SELECT min(start) FROM compat.CUPTI_ACTIVITY_KIND_KERNEL),
                 (SELECT min(start) FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME),
                 (SELECT min(start) FROM compat.CUPTI_ACTIVITY_KIND_DRIVER)) AS first_ns,
           greatest((SELECT max("end") FROM compat.CUPTI_ACTIVITY_KIND_KERNEL),
                    (SELECT max("end") FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME),
                    (SELECT max("end") FROM compat.CUPTI_ACTIVITY_KIND_DRIVER)) AS last_ns
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
