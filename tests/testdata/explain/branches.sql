-- SPEC 2.1: the ordered branches with their conditions, then main
CREATE STREAM s (name VARCHAR, t DOUBLE) WITH ('connector'='file', 'path'='s.csv');
SELECT name INTO SIDE 'low' FROM s WHERE t < 10;
SELECT name INTO SIDE 'high' FROM s WHERE t > 70 AND name LIKE '%8';
EXPLAIN SELECT * FROM s;
EXPLAIN SELECT name, t * 2 AS double_t FROM s WHERE t IS NOT NULL LIMIT 5;
DROP SIDE 'low';
DROP SIDE 'high';
