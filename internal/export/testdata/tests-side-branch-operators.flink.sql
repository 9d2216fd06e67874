-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:12: stream readings: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:19: rows late for this OVER window (below the watermark, SPEC 2.9) go to the side output 'late'; Flink has no late output: it drops them in streaming mode and keeps them in batch mode

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `readings` (
  `dev` STRING,
  `ts` TIMESTAMP(3),
  `temp` DOUBLE,
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/readings.csv',
  'format' = 'csv'
);

CREATE TABLE `cold-avg` (
  `dev` STRING,
  `ts` TIMESTAMP(3),
  `temp` DOUBLE,
  `avg3` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'cold-avg');

CREATE TABLE `hot-top2` (
  `dev` STRING,
  `temp` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'hot-top2');

CREATE TABLE `main` (
  `dev` STRING,
  `ts` TIMESTAMP(3),
  `temp` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `cold-avg`
  SELECT `readings`.`dev`, `readings`.`ts`, `readings`.`temp`, AVG(CAST(`readings`.`temp` AS DOUBLE)) OVER (PARTITION BY `readings`.`dev` ORDER BY `readings`.`ts` ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS `avg3`
  FROM `readings` AS `readings`
  WHERE ((`readings`.`temp`) < (10)) IS TRUE;
INSERT INTO `hot-top2`
  SELECT `dev`, `temp`
  FROM (SELECT `readings`.`dev`, `readings`.`temp`, ROW_NUMBER() OVER (PARTITION BY `readings`.`dev` ORDER BY `readings`.`temp` DESC) AS `rn` FROM `readings` AS `readings` WHERE ((`readings`.`temp`) > (30)) AND (((`temp`) < (10)) IS NOT TRUE))
  WHERE ((`rn`) <= (2)) IS TRUE;
INSERT INTO `main`
  SELECT `readings`.`dev`, `readings`.`ts`, `readings`.`temp`
  FROM `readings` AS `readings`
  WHERE ((`readings`.`temp`) < (10)) IS NOT TRUE
    AND ((`readings`.`temp`) > (30)) IS NOT TRUE;
END;
