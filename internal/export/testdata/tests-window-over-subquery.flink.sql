-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:9: stream readings: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:16: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   query.sql:20: a window's late rows go to the side output 'late-f' (LATE INTO SIDE); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `readings` (
  `dev` STRING,
  `ts` TIMESTAMP(3),
  `temp` DOUBLE,
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '10' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/readings.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW `subquery` AS
  SELECT `readings`.`dev`, `readings`.`ts`, `readings`.`temp` FROM `readings` AS `readings` WHERE ((`readings`.`temp`) >= (10));

CREATE TEMPORARY VIEW `subquery_2` AS
  SELECT `readings`.`ts`, ((CAST((`readings`.`temp`) * (9) AS DOUBLE) / NULLIF(CAST(5 AS DOUBLE), 0))) + (32) AS `f` FROM `readings` AS `readings`;

CREATE TABLE `main` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `dev` STRING,
  `n` BIGINT,
  `max_t` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `max_f` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `window_start` AS `window_start`, `window_end` AS `window_end`, `dev`, COUNT(*) AS `n`, MAX(`temp`) AS `max_t`
  FROM TABLE(TUMBLE(TABLE `subquery`, DESCRIPTOR(`ts`), INTERVAL '1' MINUTE)) AS `subquery`
  GROUP BY `window_start`, `window_end`, `dev`;
INSERT INTO `main_2`
  SELECT `window_start` AS `window_start`, `window_end` AS `window_end`, MAX(`f`) AS `max_f`
  FROM TABLE(HOP(TABLE `subquery_2`, DESCRIPTOR(`ts`), INTERVAL '30' SECOND, INTERVAL '1' MINUTE)) AS `subquery_2`
  GROUP BY `window_start`, `window_end`;
END;
