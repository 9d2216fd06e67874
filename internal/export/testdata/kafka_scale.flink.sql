-- Flink SQL (Flink 2.x), written by `streamql export --flink` from kafka_scale.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   kafka_scale.sql:9: stream sensors_scale: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   kafka_scale.sql:14: stream scale_high: streamql's exactly-once sinks of a job share one Kafka transaction with the source offsets; each Flink Kafka sink has its own transactions, committed at checkpoints (enable checkpointing, or no row is committed)
--   kafka_scale.sql:18: stream scale_rest: streamql's exactly-once sinks of a job share one Kafka transaction with the source offsets; each Flink Kafka sink has its own transactions, committed at checkpoints (enable checkpointing, or no row is committed)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `sensors_scale` (
  `id` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'sensors-scale',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.group.id' = 'scale-demo',
  'properties.session.timeout.ms' = '6000',
  'sink.delivery-guarantee' = 'at-least-once',
  'format' = 'csv'
);

CREATE TABLE `scale_high` (
  `id` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'scale-high',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.transaction.timeout.ms' = '10000',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'scale-demo',
  'format' = 'json'
);

CREATE TABLE `scale_rest` (
  `id` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'scale-rest',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.transaction.timeout.ms' = '10000',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'scale-demo',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `scale_high`
  SELECT `sensors_scale`.`id`, `sensors_scale`.`temperature`
  FROM `sensors_scale` AS `sensors_scale`
  WHERE ((`sensors_scale`.`temperature`) > (70)) IS TRUE;
INSERT INTO `scale_rest`
  SELECT `sensors_scale`.`id`, `sensors_scale`.`temperature`
  FROM `sensors_scale` AS `sensors_scale`
  WHERE ((`sensors_scale`.`temperature`) > (70)) IS NOT TRUE;
END;
