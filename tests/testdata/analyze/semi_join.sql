-- formats: csv json
-- SPEC 3 and 2.2: EXPLAIN ANALYZE of a bounded semi join: the build side's
-- rows, the rows its filter counted (tier = 'gold': c1 twice, c3, c4), its
-- distinct keys (c1, c3, c4: 3), their bytes (each key's length-prefixed text,
-- 3 bytes, plus 48 a key: 153), the build stream's malformed row, and the
-- orders it let through (o1, o4, o5); and an anti join with a LIMIT, whose
-- limit cuts the main output at 2 rows.
CREATE STREAM orders (id VARCHAR, customer VARCHAR, amount DOUBLE) WITH ('connector'='file', 'path'='orders.csv');
CREATE STREAM customers (id VARCHAR, tier VARCHAR) WITH ('connector'='file', 'path'='customers.csv');
EXPLAIN ANALYZE SELECT o.id, o.amount FROM orders o SEMI JOIN customers c ON o.customer = c.id AND c.tier = 'gold';
EXPLAIN ANALYZE SELECT id FROM orders WHERE customer NOT IN (SELECT id FROM customers WHERE tier = 'gold') LIMIT 2;
