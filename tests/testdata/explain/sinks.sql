-- SPEC 2.5: EXPLAIN shows where every output goes: stdout, a side output, a
-- sink stream (its connector, path and format), and the dead-letter stream
CREATE STREAM dlq (stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR) WITH ('connector'='file', 'path'='dlq.csv', 'sink.mode'='append');
CREATE STREAM s (name VARCHAR, t DOUBLE) WITH ('connector'='file', 'path'='s.csv', 'errors.stream'='dlq');
CREATE STREAM hot (name VARCHAR, t DOUBLE) WITH ('connector'='file', 'path'='out/hot.json', 'format'='json');
CREATE STREAM rest (name VARCHAR, t DOUBLE) WITH ('connector'='file', 'path'='rest.csv');
SELECT name INTO SIDE 'low' FROM s WHERE t < 10;
SELECT name, t INTO STREAM hot FROM s WHERE t > 70;
EXPLAIN SELECT * FROM s;
EXPLAIN INSERT INTO rest SELECT name, t FROM s;
DROP SIDE 'low';
DROP SIDE 'hot';
