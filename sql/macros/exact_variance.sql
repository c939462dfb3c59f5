-- name: exact_variance
-- kind: scalar_macro
-- params: x
-- needs: none
-- exact_variance(x): scalar macro over an aggregate, the sample variance of integer x (NULL for one row),
-- never negative. Where the integer sums fit in HUGEINT (every |x| below 2^40 ns, n * sum(x^2) below 10^37) it
-- is computed from exact integer sums, so there is a single rounding whatever the row order. Beyond that (values
-- no clock gives, in a hostile file) it is DuckDB's var_samp (Welford's method, stable: identical values give 0,
-- as nsys prints) clamped at 0; the old sum-of-squares-minus-square-of-sum in DOUBLE went negative there and made
-- sqrt() fail. Standard deviations of the nsys-equivalent summaries use it.
CASE
    WHEN max(x) < 1099511627776 AND min(x) > -1099511627776
        AND count(x)::DOUBLE * sum(x::DOUBLE * x) < 1e37
    THEN (count(x) * sum(CASE WHEN x BETWEEN -1099511627776 AND 1099511627776 THEN x::HUGEINT * x END)
            - sum(x::HUGEINT) * sum(x::HUGEINT)) / nullif(count(x) * (count(x) - 1), 0)
    ELSE greatest(var_samp(x), 0)
END
