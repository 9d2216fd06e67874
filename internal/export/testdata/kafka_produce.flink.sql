-- Flink SQL (Flink 2.x), written by `streamql export --flink` from kafka_produce.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   kafka_produce.sql:7: stream sensor_lines: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `sensor_lines` (
  `line` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/sensors.csv',
  'format' = 'csv',
  'csv.field-delimiter' = '\t'
);

CREATE TEMPORARY VIEW `extra` (`line`) AS VALUES
  (CAST('设备3,1610043600000,hot' AS STRING)),
  (CAST('设备4;1610043700000;12.5' AS STRING));

CREATE TABLE `sensors_topic` (
  `line` STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'sensors',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'sink.delivery-guarantee' = 'at-least-once',
  'format' = 'csv',
  'csv.field-delimiter' = '\t'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `sensors_topic`
  SELECT `sensor_lines`.`line`
  FROM `sensor_lines` AS `sensor_lines`;
INSERT INTO `sensors_topic`
  SELECT `extra`.`line`
  FROM `extra` AS `extra`;
END;
