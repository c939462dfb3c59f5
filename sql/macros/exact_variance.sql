-- exact_variance(x): scalar macro over an aggregate, the sample variance of integer x (NULL for one row)
-- computed from exact integer sums, so there is a single rounding whatever the row order. Standard
-- deviations of the nsys-equivalent summaries use it.
(count(x) * sum(x::HUGEINT * x) - sum(x::HUGEINT) ** 2) / nullif(count(x) * (count(x) - 1), 0)
