-- test: skip (needs a Kafka broker: see the README, "Kafka")
-- The sensor split of split_sensors.sql between Kafka topics (SPEC 2.5): it
-- reads the topic 'sensors' (written by kafka_produce.sql) up to the end
-- offsets seen when it starts, sends rows above 70 degrees to the topic
-- 'high-tmp' (json values keyed by device, placed by Kafka's murmur2
-- partitioner), rows below 10 to the side output 'low-tmp', the rest to the
-- main output, and malformed records to the dead-letter topic 'sensors-dlq'
-- (value = the record's bytes, headers stream, position and error).
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,         -- event time, epoch milliseconds
  temperature DOUBLE
) WITH ('connector' = 'kafka', 'topic' = 'sensors', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'csv', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
        'errors.stream' = 'dlq');

CREATE STREAM high_tmp (deviceNo VARCHAR, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'high-tmp', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'json', 'key.fields' = 'deviceNo');
CREATE STREAM dlq (stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR)
  WITH ('connector' = 'kafka', 'topic' = 'sensors-dlq', 'properties.bootstrap.servers' = '127.0.0.1:9092');

SELECT deviceNo, temperature INTO SIDE 'low-tmp'  FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO STREAM high_tmp FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
