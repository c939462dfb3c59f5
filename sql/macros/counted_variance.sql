-- name: counted_variance
-- kind: scalar_macro
-- params: x, n
-- needs: none
-- counted_variance(x, n): scalar macro over an aggregate, exact_variance of integer values x each occurring n times
-- (rows of distinct values with their counts), from the same exact integer sums, so the same double; NULL for one
-- occurrence. NaN where those sums would not fit in HUGEINT (|x| from 2^40 ns, or n * sum(x^2) from 10^37: values
-- no clock gives, in a hostile file): the view then takes DuckDB's var_samp over the values themselves, as
-- exact_variance does.
CASE
    WHEN max(x) < 1099511627776 AND min(x) > -1099511627776
        AND sum(n)::DOUBLE * sum(x::DOUBLE * x * n) < 1e37
    THEN (sum(n)::BIGINT * sum(CASE WHEN x BETWEEN -1099511627776 AND 1099511627776 THEN x::HUGEINT * x * n END)
            - sum(x::HUGEINT * n) * sum(x::HUGEINT * n)) / nullif(sum(n)::BIGINT * (sum(n)::BIGINT - 1), 0)
    ELSE 'NaN'::DOUBLE
END
