-- Filter via side output over a socket (Flink: socketTextStream + a ProcessFunction
-- that collects '属于a' for key a and sends '不属于a' to the OutputTag "is_not_a").
-- Run it live, in two terminals:
--   1. nc -lk 1111
--   2. go run ./cmd/streamql --format plain queries/socket_filter.sql
-- then type lines like  a,1  and  b,1  into nc: each shows at once, as
-- "main> (属于a)" or "is_not_a> (不属于a)". Closing nc (Ctrl-C there) ends the job;
-- Ctrl-C in streamql stops it. Without --format, table chunks show every second.
-- test: skip
CREATE STREAM kv (k VARCHAR, v BIGINT)
  WITH ('connector' = 'socket', 'hostname' = 'localhost', 'port' = '1111', 'format' = 'csv');

SELECT '不属于a' AS result INTO SIDE 'is_not_a' FROM kv WHERE k <> 'a';
SELECT '属于a' AS result FROM kv;
