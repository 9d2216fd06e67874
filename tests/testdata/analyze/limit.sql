-- formats: tsv plain
-- SPEC 3 and SPEC 2: EXPLAIN ANALYZE of a job whose LIMIT ends it: the main
-- output has its 3 rows (o1, o2, o5), the side branch keeps the rows routed
-- before the LIMIT's last row (o3, o4; o6 comes after o5), and the limit
-- operator shows the row it cut (6 in, 5 out); LIMIT 0 reads nothing.
CREATE STREAM orders (id VARCHAR, customer VARCHAR, amount DOUBLE) WITH ('connector'='file', 'path'='orders.csv');
SELECT id INTO SIDE 'small' FROM orders WHERE amount < 8;
EXPLAIN ANALYZE SELECT id, amount FROM orders WHERE amount >= 8 LIMIT 3;
EXPLAIN ANALYZE SELECT id FROM orders LIMIT 0;
