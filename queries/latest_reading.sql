-- The latest reading per device: deduplication keeping the last row (SPEC 2.9),
-- ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) ... WHERE rn = 1,
-- ts the event time. Run it with:
--   go run ./cmd/streamql queries/latest_reading.sql
-- The result is updating (SPEC 2.8): a device's newer reading takes back the
-- device's row (-U) and puts the new one (+U), with deviceNo its upsert key
-- (EXPLAIN shows it), so a sink keyed by deviceNo holds the table:
-- latest_reading_upsert_kafka.sql writes it to an upsert-kafka topic. Over this
-- bounded file the changes are folded and each device's row is given once, at
-- the end (SPEC 2.4); SET 'execution.runtime-mode' = 'streaming' prints every
-- change, as an unbounded source does.
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,                                    -- event time, epoch ms
  temperature DOUBLE,
  WATERMARK FOR ts AS ts                                 -- (the file is in ts order)
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');

SELECT deviceNo, ts, temperature
  FROM (SELECT deviceNo, ts, temperature,
               ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) AS rn
          FROM sensors)
 WHERE rn = 1;
