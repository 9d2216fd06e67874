-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:12: stream LeftTable: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:19: stream RightTable: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:26: the join's rows of L that are late (below its watermark, SPEC 2.7) go to the side output 'late-L'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:26: the join's rows of R that are late (below its watermark, SPEC 2.7) go to the side output 'late-R'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `LeftTable` (
  `row_time` TIMESTAMP(3),
  `num` BIGINT,
  `id` STRING,
  WATERMARK FOR `row_time` AS (`row_time`) - INTERVAL '5' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/left.csv',
  'format' = 'csv'
);

CREATE TABLE `RightTable` (
  `row_time` TIMESTAMP(3),
  `num` BIGINT,
  `id` STRING,
  WATERMARK FOR `row_time` AS `row_time`
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/right.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `L_Num` BIGINT,
  `L_Id` STRING,
  `R_Num` BIGINT,
  `R_Id` STRING,
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `L`.`num` AS `L_Num`, `L`.`id` AS `L_Id`, `R`.`num` AS `R_Num`, `R`.`id` AS `R_Id`, COALESCE(`L`.`window_start`, `R`.`window_start`) AS `window_start`, COALESCE(`L`.`window_end`, `R`.`window_end`) AS `window_end`
  FROM (SELECT `LeftTable`.`row_time`, `LeftTable`.`num`, `LeftTable`.`id`, `LeftTable`.`window_start` AS `window_start`, `LeftTable`.`window_end` AS `window_end`, `LeftTable`.`window_time` AS `window_time` FROM TABLE(TUMBLE(TABLE `LeftTable`, DESCRIPTOR(`row_time`), INTERVAL '5' MINUTES)) AS `LeftTable`) AS `L` FULL JOIN (SELECT `RightTable`.`row_time`, `RightTable`.`num`, `RightTable`.`id`, `RightTable`.`window_start` AS `window_start`, `RightTable`.`window_end` AS `window_end`, `RightTable`.`window_time` AS `window_time` FROM TABLE(TUMBLE(TABLE `RightTable`, DESCRIPTOR(`row_time`), INTERVAL '5' MINUTES)) AS `RightTable`) AS `R` ON (((`L`.`num`) = (`R`.`num`)) AND ((`L`.`window_start`) = (`R`.`window_start`))) AND ((`L`.`window_end`) = (`R`.`window_end`));
END;
