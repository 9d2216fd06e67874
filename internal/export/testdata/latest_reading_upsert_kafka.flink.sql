-- Flink SQL (Flink 2.x), written by `streamql export --flink` from latest_reading_upsert_kafka.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   latest_reading_upsert_kafka.sql:14: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   latest_reading_upsert_kafka.sql:21: stream latest_reading: a malformed record (a tombstone without a key, a value its columns cannot hold) goes to streamql's errors output; Flink fails the job at the first one
--   latest_reading_upsert_kafka.sql:29: ROW_NUMBER over rows that tie on its ORDER BY: streamql numbers them in arrival order, Flink in an order of its parallel instances, so the rows kept among ties may differ; add a column to ORDER BY that breaks ties
--   latest_reading_upsert_kafka.sql:29: stream latest_reading is written here and read by a later job: streamql runs the jobs one after the other, Flink's statement set runs them at the same time

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- The script sets 'execution.runtime-mode' = 'streaming': updating results are changelogs in both engines (SPEC 2.8).
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `sensors` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/sensors.csv',
  'format' = 'csv'
);

CREATE TABLE `latest_reading` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE,
  PRIMARY KEY (`deviceNo`) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'latest_reading',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'json',
  'value.format' = 'json',
  'scan.bounded.mode' = 'latest-offset',
  'sink.delivery-guarantee' = 'at-least-once'
);

CREATE TABLE `main` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `latest_reading`
  SELECT `deviceNo`, `ts`, `temperature`
  FROM (SELECT `sensors`.`deviceNo`, `sensors`.`ts`, `sensors`.`temperature`, ROW_NUMBER() OVER (PARTITION BY `sensors`.`deviceNo` ORDER BY `sensors`.`ts_rowtime` DESC) AS `rn` FROM `sensors` AS `sensors`)
  WHERE (`rn`) = (1);
INSERT INTO `main`
  SELECT `latest_reading`.`deviceNo`, `latest_reading`.`ts`, `latest_reading`.`temperature`
  FROM `latest_reading` AS `latest_reading`;
END;
