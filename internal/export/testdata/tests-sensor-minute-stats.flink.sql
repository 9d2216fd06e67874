-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:10: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:17: a window's late rows go to the side output 'late-sensors' (LATE INTO SIDE); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `sensors` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ((`ts`) - 5000, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/sensors.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `window_start` BIGINT,
  `window_end` BIGINT,
  `deviceNo` STRING,
  `n` BIGINT,
  `avg_t` DOUBLE,
  `min_t` DOUBLE,
  `max_t` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`sensors`.`window_start`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`sensors`.`window_start`, 'SSS') AS BIGINT)) AS `window_start`, (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`sensors`.`window_end`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`sensors`.`window_end`, 'SSS') AS BIGINT)) AS `window_end`, `sensors`.`deviceNo`, COUNT(*) AS `n`, AVG(CAST(`sensors`.`temperature` AS DOUBLE)) AS `avg_t`, MIN(`sensors`.`temperature`) AS `min_t`, MAX(`sensors`.`temperature`) AS `max_t`
  FROM TABLE(TUMBLE(TABLE `sensors`, DESCRIPTOR(`ts_rowtime`), INTERVAL '1' MINUTE)) AS `sensors`
  GROUP BY `sensors`.`window_start`, `sensors`.`window_end`, `sensors`.`deviceNo`;
END;
