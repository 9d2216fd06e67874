-- Flink SQL (Flink 2.x), written by `streamql export --flink` from window_over_view.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   window_over_view.sql:3: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   window_over_view.sql:6: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_over_view.sql:7: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_over_view.sql:10: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_over_view.sql:12: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_over_view.sql:15: stream clicks: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   window_over_view.sql:18: the window's time column ts is BIGINT (epoch ms) in the relation the window reads: Flink windows only a TIMESTAMP time attribute and refuses it; window the stream itself (its export windows the TIMESTAMP rowtime column it adds)
--   window_over_view.sql:18: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

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

CREATE TABLE `clicks` (
  `u` STRING,
  `ts` BIGINT,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ((`ts`) - (1000), 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/clicks.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW `warm` AS
  SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) >= (10));

CREATE TEMPORARY VIEW `cold` AS
  SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) < (10));

CREATE TEMPORARY VIEW `cold_2` AS
  SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) < (10));

CREATE TEMPORARY VIEW `named` AS
  SELECT `clicks`.`u`, `clicks`.`ts` FROM `clicks` AS `clicks` WHERE ((`clicks`.`u`) IS NOT NULL);

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

CREATE TABLE `main_5` (
  `window_start` BIGINT,
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
INSERT INTO `main_5`
  SELECT `window_start` AS `window_start`, COUNT(*) AS `n`
  FROM TABLE(TUMBLE(TABLE `named`, DESCRIPTOR(`ts`), INTERVAL '1' MINUTE)) AS `named`
  GROUP BY `window_start`, `window_end`;
END;
