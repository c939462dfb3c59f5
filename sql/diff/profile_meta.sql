-- name: profile_meta
-- kind: query
-- params: none
-- needs: compat.ANALYSIS_DETAILS, compat.EXPORT_META_DATA, compat.META_DATA_EXPORT, compat.TARGET_INFO_GPU
-- profile_meta: what identifies a capture, read from the small metadata tables only (no event scan).
WITH meta AS (
    SELECT name, value FROM compat.META_DATA_EXPORT
    UNION ALL
    SELECT name, value FROM compat.EXPORT_META_DATA
)
SELECT
    (SELECT max(value) FROM meta WHERE name = 'EXPORT_PRODUCT_VERSION') AS nsys_version, -- nsys that exported
    (SELECT max(duration) FROM compat.ANALYSIS_DETAILS) AS capture_ns, -- capture length (ns); NULL before 2022
    (SELECT string_agg(DISTINCT name, ', ' ORDER BY name) FROM compat.TARGET_INFO_GPU) AS gpus -- GPU models
