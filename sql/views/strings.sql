-- name: strings
-- kind: view
-- params: none
-- needs: compat.StringIds
-- strings: nsys' string table; every name id in the raw tables points here.
SELECT
    id,    -- string id (StringIds.id)
    value  -- the string
FROM compat.StringIds
