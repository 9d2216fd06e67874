-- test: skip (needs a Kafka broker: see the README, "Kafka")
-- The products change log of cdc_products.sql written to an upsert topic
-- (SPEC 2.8, Flink's upsert-kafka): each record's key is the PRIMARY KEY as
-- JSON ({"id":111}), its value the row, a delete a tombstone (a null value),
-- and an update's -U is not written (its +U replaces the key's row). Then the
-- topic is read back as a table: the latest row of every key, deleted keys
-- gone. Start a broker (scripts/kafka-broker start DIR) and give its address
-- in 'properties.bootstrap.servers'.
CREATE STREAM products (
  id BIGINT, name VARCHAR, description VARCHAR, weight DOUBLE,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'file', 'path' = 'products.debezium.json', 'format' = 'debezium-json');

CREATE STREAM products_topic (
  id BIGINT, name VARCHAR, weight DOUBLE,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'products',
        'properties.bootstrap.servers' = '127.0.0.1:9092',
        'key.format' = 'json', 'value.format' = 'json',
        'scan.bounded.mode' = 'latest-offset');

INSERT INTO products_topic SELECT id, name, weight FROM products;

-- the table, as a change log in Debezium's envelope (+I per key, then -U/+U
-- and -D for the keys that changed while the topic was written)
CREATE STREAM table_now (id BIGINT, name VARCHAR, weight DOUBLE)
  WITH ('connector' = 'file', 'path' = 'cdc_upsert_kafka.table.json', 'format' = 'debezium-json');
INSERT INTO table_now SELECT * FROM products_topic;
