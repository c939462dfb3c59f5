-- name: counted_variance
-- kind: scalar_macro
-- params: x, n, mean
-- needs: none
-- counted_variance(x, n, mean): scalar macro over an aggregate, exact_variance of integer values x each occurring n
-- times (rows of distinct values with their counts; `mean`: the values' mean, the same on every row of the group),
-- from the same exact integer sums, so the same double; NULL for one occurrence. Where those sums would not fit in
-- HUGEINT (|x| from 2^40 ns, or n * sum(x^2) from 10^37: values no clock gives, in a hostile file) it is the
-- squared distances from the mean in DOUBLE (two passes: stable, as exact_variance's var_samp there), 0 where every
-- value is the same (as nsys prints), never negative.
CASE
    WHEN max(x) < 1099511627776 AND min(x) > -1099511627776
        AND sum(n)::DOUBLE * sum(x::DOUBLE * x * n) < 1e37
    THEN (sum(n)::BIGINT * sum(CASE WHEN x BETWEEN -1099511627776 AND 1099511627776 THEN x::HUGEINT * x * n END)
            - sum(x::HUGEINT * n) * sum(x::HUGEINT * n)) / nullif(sum(n)::BIGINT * (sum(n)::BIGINT - 1), 0)
    WHEN min(x) = max(x) THEN 0.0
    ELSE greatest(sum(n * (x - mean) * (x - mean)) / nullif(sum(n) - 1, 0), 0)
END
