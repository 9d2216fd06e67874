-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:3: stream Lookup: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:6: stream Lookup: Flink's csv format has no header line option: the first line is read as a row (remove it from the file, or map columns by position)
--   query.sql:7: stream evts_2: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:13: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   query.sql:15: the window's time column log_time is BIGINT without WATERMARK FOR; Flink's window functions need a TIMESTAMP or a time attribute: declare WATERMARK FOR log_time on the stream
--   query.sql:18: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   query.sql:18: LIMIT takes the first rows in input order and ends the job in streamql; Flink takes any rows of its parallel instances
--   query.sql:19: the window's time column log_time is BIGINT without WATERMARK FOR; Flink's window functions need a TIMESTAMP or a time attribute: declare WATERMARK FOR log_time on the stream

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `Lookup` (
  `dev-id` STRING,
  `ts2` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/Lookup.csv',
  'format' = 'csv'
);

CREATE TABLE `evts_2` (
  `dev-id` STRING,
  `ts2` BIGINT,
  `qty` BIGINT,
  `log_time` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'in put/evts_2.csv',
  'format' = 'csv'
);

CREATE TABLE `Small` (
  `window_start` BIGINT,
  `window_end` BIGINT,
  `dev-id` STRING,
  `Total` DOUBLE,
  `f` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'Small');

CREATE TABLE `main` (
  `window_start` BIGINT,
  `dev-id` STRING,
  `txt2` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `Small`
  SELECT `win`.`window_start` AS `window_start`, `win`.`window_end` AS `window_end`, `win`.`dev-id`, SUM(9.999E-04) AS `Total`, MAX(`win`.`dev-id`) AS `f`
  FROM TABLE(SESSION(TABLE `evts_2` PARTITION BY `dev-id`, DESCRIPTOR(`log_time`), interval '2' second)) AS `win`
  WHERE ((`win`.`dev-id`) IN (SELECT `r`.`dev-id` FROM `Lookup` AS `r`)) IS TRUE
  GROUP BY `win`.`window_end`, `win`.`window_start`, `win`.`dev-id`;
INSERT INTO `main`
  SELECT `x1`.`window_start` AS `window_start`, `x1`.`dev-id`, COUNT(DISTINCT `x1`.`dev-id`) AS `txt2`
  FROM TABLE(CUMULATE(TABLE `evts_2`, DESCRIPTOR(`log_time`), interval '1' second, interval '3' second)) AS `x1`
  WHERE ((`x1`.`dev-id`) IN (SELECT `r`.`dev-id` FROM `Lookup` AS `r`)) IS NOT TRUE
  GROUP BY `x1`.`window_start`, `x1`.`window_end`, `x1`.`dev-id` LIMIT 3;
END;
