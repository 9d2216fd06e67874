-- A running count per device: GROUP BY without a window is an updating result
-- (SPEC 2.8). Each reading changes its device's row: +I for a device's first
-- reading, then -U (the old row) and +U (the new one), as Flink's changelog.
--   go run ./cmd/streamql --format csv queries/running_count.sql
-- Over an unbounded stream (Kafka, a socket) the changelog is the result; over
-- a bounded file SPEC 2.4 emits each group once, at the end, unless
-- 'execution.runtime-mode' is 'streaming' (Flink's key), as here.
-- `--format table` keeps the materialized result: the last count per device.
SET 'execution.runtime-mode' = 'streaming';
CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');
SELECT deviceNo, COUNT(*) AS readings, MAX(temperature) AS max_t
FROM sensors
GROUP BY deviceNo;
