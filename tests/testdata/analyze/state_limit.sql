-- formats: tsv
-- SPEC 3 and SPEC 1: a job stopped by 'state.max-bytes' prints the plan with
-- what happened (the build side's 4 counted rows, 3 keys: 153 bytes, past 100;
-- the probe stream not read), then the error, exit 1.
CREATE STREAM orders (id VARCHAR, customer VARCHAR, amount DOUBLE) WITH ('connector'='file', 'path'='orders.csv');
CREATE STREAM customers (id VARCHAR, tier VARCHAR) WITH ('connector'='file', 'path'='customers.csv');
SET 'state.max-bytes' = '100';
EXPLAIN ANALYZE SELECT o.id FROM orders o SEMI JOIN customers c ON o.customer = c.id AND c.tier = 'gold';
