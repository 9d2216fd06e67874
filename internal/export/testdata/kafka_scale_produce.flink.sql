-- Flink SQL (Flink 2.x), written by `streamql export --flink` from kafka_scale_produce.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   kafka_scale_produce.sql:7: stream gen: Flink's datagen draws other random rows than streamql's seeded generator ('seed' has no Flink equivalent)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `gen` (
  `id` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '200000',
  'rows-per-second' = '20000',
  'fields.id.kind' = 'sequence',
  'fields.temperature.max' = '100',
  'fields.temperature.min' = '0'
);

CREATE TABLE `sensors_scale` (
  `id` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'sensors-scale',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'sink.delivery-guarantee' = 'at-least-once',
  'key.fields' = 'id',
  'key.format' = 'csv',
  'value.format' = 'csv'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `sensors_scale`
  SELECT `gen`.`id`, `gen`.`temperature`
  FROM `gen` AS `gen`;
END;
