-- SPEC 2.1: without a main query, rows no branch takes are discarded; EXPLAIN
-- of a side branch shows the pending ones before it and uses none up
CREATE STREAM s (name VARCHAR, t DOUBLE) WITH ('connector'='file', 'path'='s.csv', 'errors'='skip');
SELECT name INTO SIDE 'low' FROM s WHERE t < 10;
EXPLAIN SELECT name, t INTO SIDE 'high' FROM s WHERE t > 90;
DROP SIDE 'low';
