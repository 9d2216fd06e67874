-- SPEC 2.2: bounded build sides are read whole first; mode, keys, filters, state
CREATE STREAM l (k VARCHAR, n BIGINT, v BIGINT) WITH ('connector'='file', 'path'='l.csv');
CREATE STREAM r (k VARCHAR, n DOUBLE, active BOOLEAN) WITH ('connector'='file', 'path'='r.csv', 'errors.side'='r-bad');
EXPLAIN SELECT l.v FROM l ANTI JOIN r ON l.k = r.k;
EXPLAIN SELECT l.v FROM l SEMI JOIN r ON l.k = r.k AND l.n = r.n AND r.active = true AND l.v > 10;
EXPLAIN SELECT v FROM l WHERE k NOT IN (SELECT k FROM r WHERE r.active);
EXPLAIN SELECT v FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k);
SELECT v INTO SIDE 'unknown' FROM l WHERE k NOT IN (SELECT k FROM r WHERE k IS NOT NULL);
EXPLAIN SELECT v FROM l;
DROP SIDE 'unknown';
