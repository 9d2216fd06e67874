-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:2: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `sensors` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/sensors.csv',
  'format' = 'csv'
);

CREATE TABLE `low-tmp` (
  `deviceNo` STRING,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'low-tmp');

CREATE TABLE `high-tmp` (
  `deviceNo` STRING,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'high-tmp');

CREATE TABLE `main` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `low-tmp`
  SELECT `sensors`.`deviceNo`, `sensors`.`temperature`
  FROM `sensors` AS `sensors`
  WHERE ((`sensors`.`temperature`) < (10)) IS TRUE;
INSERT INTO `high-tmp`
  SELECT `sensors`.`deviceNo`, `sensors`.`temperature`
  FROM `sensors` AS `sensors`
  WHERE ((`sensors`.`temperature`) > (70)) IS TRUE
    AND ((`sensors`.`temperature`) < (10)) IS NOT TRUE;
INSERT INTO `main`
  SELECT `sensors`.`deviceNo`, `sensors`.`ts`, `sensors`.`temperature`
  FROM `sensors` AS `sensors`
  WHERE ((`sensors`.`temperature`) < (10)) IS NOT TRUE
    AND ((`sensors`.`temperature`) > (70)) IS NOT TRUE;
END;
