-- The latest reading per device: deduplication keeping the last row (SPEC 2.9),
-- ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) ... WHERE rn = 1,
-- ts the event time. Run it with:
--   go run ./cmd/streamql queries/latest_reading.sql
-- It is updating (SPEC 2.8): a device's newer reading takes back the device's
-- row (-U) and puts the new one (+U). Its upsert key is deviceNo (EXPLAIN shows
-- it), so a sink keyed by deviceNo holds the table: latest_reading_upsert_kafka.sql
-- writes it to an upsert-kafka topic. Over a bounded file the job is updating
-- only in 'execution.runtime-mode' = 'streaming' (else the final rows are
-- emitted once, at the end); `--format table` prints the table it leaves, and
-- `--format csv` the changelog (queries/tests/latest-reading).
SET 'execution.runtime-mode' = 'streaming';
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,                                    -- event time, epoch ms
  temperature DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');

SELECT deviceNo, ts, temperature
  FROM (SELECT deviceNo, ts, temperature,
               ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) AS rn
          FROM sensors)
 WHERE rn = 1;
