-- Flink SQL (Flink 2.x), written by `streamql export --flink` from latest_reading.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   latest_reading.sql:12: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   latest_reading.sql:19: ROW_NUMBER over rows that tie on its ORDER BY: streamql numbers them in arrival order, Flink in an order of its parallel instances, so the rows kept among ties may differ; add a column to ORDER BY that breaks ties

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

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

CREATE TABLE `main` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `deviceNo`, `ts`, `temperature`
  FROM (SELECT `sensors`.`deviceNo`, `sensors`.`ts`, `sensors`.`temperature`, ROW_NUMBER() OVER (PARTITION BY `sensors`.`deviceNo` ORDER BY `sensors`.`ts_rowtime` DESC) AS `rn` FROM `sensors` AS `sensors`)
  WHERE (`rn`) = (1);
END;
