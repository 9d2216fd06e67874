-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:1: stream clicks: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:3: a window's late rows go to the side output 'late-clicks' (LATE INTO SIDE); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `clicks` (
  `uid` STRING,
  `ts` BIGINT,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/clicks.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `window_start` BIGINT,
  `window_end` BIGINT,
  `clicks` BIGINT,
  `users` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`clicks`.`window_start`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`clicks`.`window_start`, 'SSS') AS BIGINT)) AS `window_start`, (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`clicks`.`window_end`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`clicks`.`window_end`, 'SSS') AS BIGINT)) AS `window_end`, COUNT(*) AS `clicks`, LISTAGG(`clicks`.`uid`) AS `users`
  FROM TABLE(HOP(TABLE `clicks`, DESCRIPTOR(`ts_rowtime`), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) AS `clicks`
  GROUP BY `clicks`.`window_start`, `clicks`.`window_end`;
END;
