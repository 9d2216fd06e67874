-- Flink SQL (Flink 2.x), written by `streamql export --flink` from kafka_read.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   kafka_read.sql:6: stream high_tmp: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   kafka_read.sql:9: stream dead: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `high_tmp` (
  `deviceNo` STRING,
  `temperature` DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'high-tmp',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.bounded.mode' = 'latest-offset',
  'sink.delivery-guarantee' = 'at-least-once',
  'format' = 'json',
  'properties.group.id' = 'streamql-export'
);

CREATE TABLE `dead` (
  `raw` STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'sensors-dlq',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.bounded.mode' = 'latest-offset',
  'sink.delivery-guarantee' = 'at-least-once',
  'format' = 'csv',
  'csv.field-delimiter' = '\t',
  'properties.group.id' = 'streamql-export'
);

CREATE TABLE `main` (
  `deviceNo` STRING,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `raw` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `high_tmp`.`deviceNo`, `high_tmp`.`temperature`
  FROM `high_tmp` AS `high_tmp`;
INSERT INTO `main_2`
  SELECT `dead`.`raw`
  FROM `dead` AS `dead`;
END;
