-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:3: stream Lookup: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:6: stream Lookup: Flink's csv format has no header line option: the first line is read as a row (remove it from the file, or map columns by position)
--   query.sql:7: stream evts_2: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:13: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   query.sql:13: a semi/anti join in a streaming Flink job is a regular join: its output order depends on how the inputs interleave, and an anti join retracts rows a later build row matches (SPEC 2.2's answer is deterministic, left rows in left order)
--   query.sql:15: the window's time column log_time is BIGINT without WATERMARK FOR: a Flink streaming job windows only a time attribute; declare WATERMARK FOR log_time on the stream
--   query.sql:18: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   query.sql:18: LIMIT takes the first rows in input order and ends the job in streamql; Flink takes any rows of its parallel instances
--   query.sql:19: the window's time column log_time is BIGINT without WATERMARK FOR: a Flink streaming job windows only a time attribute; declare WATERMARK FOR log_time on the stream

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `Lookup` (
  `dev-id` STRING,
  `ts2` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/data/Lookup.csv',
  'format' = 'csv'
);

CREATE TABLE `evts_2` (
  `dev-id` STRING,
  `ts2` BIGINT,
  `qty` BIGINT,
  `log_time` BIGINT,
  `log_time_rowtime` AS TO_TIMESTAMP_LTZ(`log_time`, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/in put/evts_2.csv',
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
  SELECT (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`win`.`window_start`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`win`.`window_start`, 'SSS') AS BIGINT)) AS `window_start`, (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`win`.`window_end`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`win`.`window_end`, 'SSS') AS BIGINT)) AS `window_end`, `win`.`dev-id`, SUM(9.999E-04) AS `Total`, MAX(`win`.`dev-id`) AS `f`
  FROM TABLE(SESSION(TABLE `evts_2` PARTITION BY `dev-id`, DESCRIPTOR(`log_time_rowtime`), interval '2' second)) AS `win`
  WHERE ((`win`.`dev-id`) IN (SELECT `r`.`dev-id` FROM `Lookup` AS `r`)) IS TRUE
  GROUP BY `win`.`window_end`, `win`.`window_start`, `win`.`dev-id`;
INSERT INTO `main`
  SELECT (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`x1`.`window_start`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`x1`.`window_start`, 'SSS') AS BIGINT)) AS `window_start`, `x1`.`dev-id`, COUNT(DISTINCT `x1`.`dev-id`) AS `txt2`
  FROM TABLE(CUMULATE(TABLE `evts_2`, DESCRIPTOR(`log_time_rowtime`), interval '1' second, interval '3' second)) AS `x1`
  WHERE ((`x1`.`dev-id`) IN (SELECT `r`.`dev-id` FROM `Lookup` AS `r`)) IS NOT TRUE
  GROUP BY `x1`.`window_start`, `x1`.`window_end`, `x1`.`dev-id` LIMIT 3;
END;
