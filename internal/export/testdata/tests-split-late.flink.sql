-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:14: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:21: CURRENT_WATERMARK is the watermark before each row in streamql (SPEC 2.3); in Flink it is the last watermark the source's periodic generator emitted ('pipeline.auto-watermark-interval'), so rows streamql finds late may be on time in Flink

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `sensors` (
  `device` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ((`ts`) - 2000, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/readings.csv',
  'format' = 'csv'
);

CREATE TABLE `late` (
  `device` STRING,
  `ts` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'late');

CREATE TABLE `high` (
  `device` STRING,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'high');

CREATE TABLE `main` (
  `device` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `late`
  SELECT `sensors`.`device`, `sensors`.`ts`
  FROM `sensors` AS `sensors`
  WHERE ((TO_TIMESTAMP_LTZ(`sensors`.`ts`, 3)) < (CURRENT_WATERMARK(`sensors`.`ts_rowtime`))) IS TRUE;
INSERT INTO `high`
  SELECT `sensors`.`device`, `sensors`.`temperature`
  FROM `sensors` AS `sensors`
  WHERE ((`sensors`.`temperature`) > (70)) IS TRUE
    AND ((TO_TIMESTAMP_LTZ(`sensors`.`ts`, 3)) < (CURRENT_WATERMARK(`sensors`.`ts_rowtime`))) IS NOT TRUE;
INSERT INTO `main`
  SELECT `sensors`.`device`, `sensors`.`ts`, `sensors`.`temperature`
  FROM `sensors` AS `sensors`
  WHERE ((TO_TIMESTAMP_LTZ(`sensors`.`ts`, 3)) < (CURRENT_WATERMARK(`sensors`.`ts_rowtime`))) IS NOT TRUE
    AND ((`sensors`.`temperature`) > (70)) IS NOT TRUE;
END;
