-- Flink SQL (Flink 2.x), written by `streamql export --flink` from kafka_scale_read.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   kafka_scale_read.sql:6: stream scale_high: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   kafka_scale_read.sql:9: stream scale_rest: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `scale_high` (
  `id` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'scale-high',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.isolation.level' = 'read_committed',
  'scan.bounded.mode' = 'latest-offset',
  'sink.delivery-guarantee' = 'at-least-once',
  'format' = 'json',
  'properties.group.id' = 'streamql-export'
);

CREATE TABLE `scale_rest` (
  `id` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'scale-rest',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.isolation.level' = 'read_committed',
  'scan.bounded.mode' = 'latest-offset',
  'sink.delivery-guarantee' = 'at-least-once',
  'format' = 'json',
  'properties.group.id' = 'streamql-export'
);

CREATE TABLE `main` (
  `records` BIGINT,
  `ids` BIGINT,
  `first_id` BIGINT,
  `last_id` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `records` BIGINT,
  `ids` BIGINT,
  `first_id` BIGINT,
  `last_id` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT COUNT(*) AS `records`, COUNT(DISTINCT `scale_high`.`id`) AS `ids`, MIN(`scale_high`.`id`) AS `first_id`, MAX(`scale_high`.`id`) AS `last_id`
  FROM `scale_high` AS `scale_high`;
INSERT INTO `main_2`
  SELECT COUNT(*) AS `records`, COUNT(DISTINCT `scale_rest`.`id`) AS `ids`, MIN(`scale_rest`.`id`) AS `first_id`, MAX(`scale_rest`.`id`) AS `last_id`
  FROM `scale_rest` AS `scale_rest`;
END;
