-- Flink SQL (Flink 2.x), written by `streamql export --flink` from cdc_upsert_kafka.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   cdc_upsert_kafka.sql:9: stream products: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   cdc_upsert_kafka.sql:14: stream products_topic: a malformed record (a tombstone without a key, a value its columns cannot hold) goes to streamql's errors output; Flink fails the job at the first one
--   cdc_upsert_kafka.sql:22: stream products_topic is written here and read by a later job: streamql runs the jobs one after the other, Flink's statement set runs them at the same time
--   cdc_upsert_kafka.sql:26: stream table_now: as a sink, Flink's filesystem connector writes a directory of part files at 'path' (csv without a header line, committed at checkpoints or the job's end), not one file replaced or appended to ('sink.mode')

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but Flink's batch mode reads no changelog source (SPEC 2.8): streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `products` (
  `id` BIGINT,
  `name` STRING,
  `description` STRING,
  `weight` DOUBLE,
  PRIMARY KEY (`id`) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/products.debezium.json',
  'format' = 'debezium-json'
);

CREATE TABLE `products_topic` (
  `id` BIGINT,
  `name` STRING,
  `weight` DOUBLE,
  PRIMARY KEY (`id`) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'products',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'json',
  'value.format' = 'json',
  'scan.bounded.mode' = 'latest-offset',
  'sink.delivery-guarantee' = 'at-least-once'
);

CREATE TABLE `table_now` (
  `id` BIGINT,
  `name` STRING,
  `weight` DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/cdc_upsert_kafka.table.json',
  'format' = 'debezium-json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `products_topic`
  SELECT `products`.`id`, `products`.`name`, `products`.`weight`
  FROM `products` AS `products`;
INSERT INTO `table_now`
  SELECT `products_topic`.`id`, `products_topic`.`name`, `products_topic`.`weight`
  FROM `products_topic` AS `products_topic`;
END;
