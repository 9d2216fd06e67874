-- Flink SQL (Flink 2.x), written by `streamql export --flink` from window_over_view.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   window_over_view.sql:6: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_over_view.sql:7: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_over_view.sql:10: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_over_view.sql:12: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `sensors` (
  `dev` STRING,
  `temp` DOUBLE,
  `et` TIMESTAMP(3),
  WATERMARK FOR `et` AS (`et`) - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/sensors.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW `warm` AS
  SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) >= (10));

CREATE TEMPORARY VIEW `cold` AS
  SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) < (10));

CREATE TEMPORARY VIEW `cold_2` AS
  SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) < (10));

CREATE TABLE `main` (
  `window_start` TIMESTAMP(3),
  `n` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `t` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `window_end` TIMESTAMP(3),
  `lo` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_4` (
  `dev` STRING,
  `window_start` TIMESTAMP(3),
  `n` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `window_start` AS `window_start`, COUNT(*) AS `n`
  FROM TABLE(TUMBLE(TABLE `warm`, DESCRIPTOR(`et`), INTERVAL '30' MINUTE)) AS `warm`
  GROUP BY `window_start`, `window_end`;
INSERT INTO `main_2`
  SELECT `window_start` AS `window_start`, `window_end` AS `window_end`, AVG(CAST(`temp` AS DOUBLE)) AS `t`
  FROM TABLE(HOP(TABLE `warm`, DESCRIPTOR(`et`), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE)) AS `w`
  GROUP BY `window_start`, `window_end`;
INSERT INTO `main_3`
  SELECT `window_end` AS `window_end`, MIN(`temp`) AS `lo`
  FROM TABLE(CUMULATE(TABLE `cold`, DESCRIPTOR(`et`), INTERVAL '10' MINUTE, INTERVAL '1' HOUR)) AS `cold`
  GROUP BY `window_start`, `window_end`;
INSERT INTO `main_4`
  SELECT `dev`, `window_start` AS `window_start`, COUNT(*) AS `n`
  FROM TABLE(TUMBLE(TABLE `cold_2`, DESCRIPTOR(`et`), INTERVAL '30' MINUTE)) AS `cold`
  GROUP BY `dev`, `window_start`, `window_end`;
END;
