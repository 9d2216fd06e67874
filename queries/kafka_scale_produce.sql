-- test: skip (needs a Kafka broker: see the README, "Scale out")
-- Writes 200,000 sensor rows into the topic 'sensors-scale' (create it with 4 partitions
-- first: go run ./scripts/kafka-topic sensors-scale 4), 20,000 a second so that the job of
-- kafka_scale.sql is still running when you kill one of its processes. Keyed by id: Kafka's
-- murmur2 partitioner spreads them over the partitions.
CREATE STREAM gen (id BIGINT, temperature DOUBLE)
  WITH ('connector' = 'datagen', 'number-of-rows' = '200000', 'rows-per-second' = '20000',
        'fields.id.kind' = 'sequence', 'fields.temperature.min' = '0', 'fields.temperature.max' = '100');
CREATE STREAM sensors_scale (id BIGINT, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'sensors-scale', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'csv', 'key.fields' = 'id');
INSERT INTO sensors_scale SELECT id, temperature FROM gen;
