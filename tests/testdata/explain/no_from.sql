-- SPEC 2: a SELECT without FROM reads one row of no columns
EXPLAIN SELECT 1 + 1 AS two, 'x' AS s;
