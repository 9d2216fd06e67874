-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:10: stream readings: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:21: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

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

CREATE TEMPORARY VIEW `warm` AS
  SELECT `readings`.`dev`, `readings`.`ts`, `readings`.`temp` FROM `readings` AS `readings` WHERE ((`readings`.`temp`) >= (10));

CREATE TABLE `main` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `dev` STRING,
  `n` BIGINT,
  `max_t` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `cold` (
  `dev` STRING,
  `temp` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'cold');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `window_start` AS `window_start`, `window_end` AS `window_end`, `dev`, COUNT(*) AS `n`, MAX(`temp`) AS `max_t`
  FROM TABLE(TUMBLE(TABLE `warm`, DESCRIPTOR(`ts`), INTERVAL '1' MINUTE)) AS `warm`
  GROUP BY `window_start`, `window_end`, `dev`;
INSERT INTO `cold`
  SELECT `readings`.`dev`, `readings`.`temp`
  FROM `readings` AS `readings`
  WHERE ((`readings`.`temp`) < (10)) IS TRUE;
END;
