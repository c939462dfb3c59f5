-- strings: nsys' string table; every name id in the raw tables points here.
-- Needs: compat.StringIds.
SELECT
    id,    -- string id (StringIds.id)
    value  -- the string
FROM compat.StringIds
