-- test: skip (needs a Kafka broker: see the README, "Kafka")
-- Reads back what kafka_split.sql wrote: the 'high-tmp' topic's json rows, and
-- the dead-letter topic's values (the malformed records' bytes, read whole as
-- one VARCHAR; the headers stream, position and error are seen with a Kafka
-- client such as kcat -C -f '%h %s\n').
CREATE STREAM high_tmp (deviceNo VARCHAR, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'high-tmp', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'json', 'scan.bounded.mode' = 'latest-offset');
CREATE STREAM dead (raw VARCHAR)
  WITH ('connector' = 'kafka', 'topic' = 'sensors-dlq', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'csv.delimiter' = '\t', 'scan.bounded.mode' = 'latest-offset');
SELECT * FROM high_tmp;
SELECT * FROM dead;
