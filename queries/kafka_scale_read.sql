-- test: skip (needs a Kafka broker: see the README, "Scale out")
-- Reads back what kafka_scale.sql wrote, as a read_committed consumer (only the records of
-- committed transactions), and counts them: with every row of kafka_scale_produce.sql
-- written exactly once, records = distinct ids in each topic, and the two topics' records
-- add up to 200,000.
CREATE STREAM scale_high (id BIGINT, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'scale-high', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'json', 'scan.bounded.mode' = 'latest-offset', 'properties.isolation.level' = 'read_committed');
CREATE STREAM scale_rest (id BIGINT, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'scale-rest', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'json', 'scan.bounded.mode' = 'latest-offset', 'properties.isolation.level' = 'read_committed');
SELECT COUNT(*) AS records, COUNT(DISTINCT id) AS ids, MIN(id) AS first_id, MAX(id) AS last_id FROM scale_high;
SELECT COUNT(*) AS records, COUNT(DISTINCT id) AS ids, MIN(id) AS first_id, MAX(id) AS last_id FROM scale_rest;
