-- test: skip (needs a Kafka broker: see the README, "Kafka")
-- The latest reading per device (latest_reading.sql: deduplication keeping the
-- last row, SPEC 2.9) written to an upsert topic (SPEC 2.8, Flink's
-- upsert-kafka): each record's key is the PRIMARY KEY as JSON
-- ({"deviceNo":"设备1"}), its value the row; a device's newer reading is a new
-- record under its key (the update's -U is not written: its +U replaces the
-- key's row). The sink's PRIMARY KEY is the query's upsert key, deviceNo
-- (EXPLAIN INSERT INTO ... shows both), so the topic, compacted or read as a
-- table, holds one row per device: its latest reading. The topic is then read
-- back as a table and printed. Start a broker (scripts/kafka-broker start DIR)
-- and give its address in 'properties.bootstrap.servers'.
-- (tests/kafka_latest_reading_test.go runs this file against a real broker.)
SET 'execution.runtime-mode' = 'streaming';            -- (every change, as from Kafka)
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,                                    -- event time, epoch ms
  temperature DOUBLE,
  WATERMARK FOR ts AS ts                                 -- (the file is in ts order)
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');

CREATE STREAM latest_reading (
  deviceNo VARCHAR, ts BIGINT, temperature DOUBLE,
  PRIMARY KEY (deviceNo) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'latest_reading',
        'properties.bootstrap.servers' = '127.0.0.1:9092',
        'key.format' = 'json', 'value.format' = 'json',
        'scan.bounded.mode' = 'latest-offset');

INSERT INTO latest_reading
SELECT deviceNo, ts, temperature
  FROM (SELECT deviceNo, ts, temperature,
               ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) AS rn
          FROM sensors)
 WHERE rn = 1;

-- the topic read back: the table of the last record of every key
SELECT * FROM latest_reading;
