-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:9: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:16: ROW_NUMBER over rows that tie on its ORDER BY: streamql numbers them in arrival order, Flink in an order of its parallel instances, so the rows kept among ties may differ; add a column to ORDER BY that breaks ties
--   query.sql:16: rows late for this window Top-N (below the watermark, SPEC 2.9) go to the side output 'late'; Flink has no late output: it drops them in streaming mode and keeps them in batch mode

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
  `ts` BIGINT,
  `temperature` DOUBLE,
  `rn` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `window_start`, `window_end`, `deviceNo`, `ts`, `temperature`, `rn`
  FROM (SELECT (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`sensors`.`window_start`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`sensors`.`window_start`, 'SSS') AS BIGINT)) AS `window_start`, (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`sensors`.`window_end`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`sensors`.`window_end`, 'SSS') AS BIGINT)) AS `window_end`, `sensors`.`deviceNo`, `sensors`.`ts`, `sensors`.`temperature`, ROW_NUMBER() OVER (PARTITION BY (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`sensors`.`window_start`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`sensors`.`window_start`, 'SSS') AS BIGINT)), (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`sensors`.`window_end`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`sensors`.`window_end`, 'SSS') AS BIGINT)) ORDER BY `sensors`.`temperature` DESC) AS `rn` FROM TABLE(TUMBLE(TABLE `sensors`, DESCRIPTOR(`ts_rowtime`), INTERVAL '1' MINUTE)) AS `sensors`)
  WHERE (`rn`) <= (3);
END;
