-- name: counted_median
-- kind: scalar_macro
-- params: x, upto, rows
-- needs: none
-- counted_median(x, upto, rows): scalar macro over an aggregate, the median of a group given as its distinct values
-- x with, on each row, `upto` (how many of the group's values are at most x: a running sum of the counts in order of
-- x) and `rows` (the group's count): halfway between the two middle values (the same one when the count is odd),
-- as median() interpolates. Needs no list of every value, which median() keeps outside DuckDB's memory limit.
min(x) FILTER (upto > (rows - 1) // 2)
    + (min(x) FILTER (upto > rows // 2) - min(x) FILTER (upto > (rows - 1) // 2)) / 2
