-- Flink SQL (Flink 2.x), written by `streamql export --flink` from window_aggs_in_views.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   window_aggs_in_views.sql:4: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   window_aggs_in_views.sql:6: a window's late rows, in the view cnt, go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_aggs_in_views.sql:8: a window's late rows, in the view hot, go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_aggs_in_views.sql:11: a window's late rows, in the WITH name lo, go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   window_aggs_in_views.sql:14: a window's late rows, in a subquery, go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

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

CREATE TABLE `main` (
  `window_start` TIMESTAMP(3),
  `n` BIGINT,
  `m` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `dev` STRING,
  `t` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `dev` STRING,
  `s` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_4` (
  `window_start` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `c`.`window_start`, `c`.`n`, `h`.`m`
  FROM (SELECT `sensors`.`window_start` AS `window_start`, `sensors`.`window_end` AS `window_end`, COUNT(*) AS `n` FROM TABLE(TUMBLE(TABLE `sensors`, DESCRIPTOR(`et`), INTERVAL '30' MINUTE)) AS `sensors` GROUP BY `sensors`.`window_start`, `sensors`.`window_end`) AS `c` JOIN (SELECT `sensors`.`window_start` AS `window_start`, `sensors`.`window_end` AS `window_end`, MAX(`sensors`.`temp`) AS `m` FROM TABLE(TUMBLE(TABLE `sensors`, DESCRIPTOR(`et`), INTERVAL '30' MINUTE)) AS `sensors` GROUP BY `sensors`.`window_start`, `sensors`.`window_end`) AS `h` ON ((`c`.`window_start`) = (`h`.`window_start`)) AND ((`c`.`window_end`) = (`h`.`window_end`));
INSERT INTO `main_2`
  SELECT `dev`, `t`
  FROM (SELECT `sensors`.`dev`, `sensors`.`window_start` AS `window_start`, `sensors`.`window_end` AS `window_end`, MIN(`sensors`.`temp`) AS `t` FROM TABLE(HOP(TABLE `sensors`, DESCRIPTOR(`et`), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE)) AS `sensors` GROUP BY `sensors`.`dev`, `sensors`.`window_start`, `sensors`.`window_end`) AS `lo`
  WHERE (`t`) < (0);
INSERT INTO `main_3`
  SELECT `dev`, `s`
  FROM (SELECT `sensors`.`dev`, `sensors`.`window_end` AS `window_end`, SUM(`sensors`.`temp`) AS `s` FROM TABLE(CUMULATE(TABLE `sensors`, DESCRIPTOR(`et`), INTERVAL '10' MINUTE, INTERVAL '1' HOUR)) AS `sensors` GROUP BY `sensors`.`dev`, `sensors`.`window_start`, `sensors`.`window_end`) AS `q`
  WHERE (`s`) > (100);
INSERT INTO `main_4`
  SELECT `window_start`
  FROM (SELECT `window_start`, `n` FROM (SELECT `sensors`.`window_start` AS `window_start`, `sensors`.`window_end` AS `window_end`, COUNT(*) AS `n` FROM TABLE(TUMBLE(TABLE `sensors`, DESCRIPTOR(`et`), INTERVAL '30' MINUTE)) AS `sensors` GROUP BY `sensors`.`window_start`, `sensors`.`window_end`) AS `cnt` WHERE ((`n`) > (5))) AS `busy`;
END;
