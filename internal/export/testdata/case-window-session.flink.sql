-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:1: stream visits: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:4: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `visits` (
  `uid` STRING,
  `ts` BIGINT,
  `page` STRING,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ((`ts`) - 2000, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/visits.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `uid` STRING,
  `window_start` BIGINT,
  `window_end` BIGINT,
  `pages` BIGINT,
  `path` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `visits`.`uid`, (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`visits`.`window_start`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`visits`.`window_start`, 'SSS') AS BIGINT)) AS `window_start`, (1000 * UNIX_TIMESTAMP(DATE_FORMAT(`visits`.`window_end`, 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(`visits`.`window_end`, 'SSS') AS BIGINT)) AS `window_end`, COUNT(*) AS `pages`, LISTAGG(`visits`.`page`, ' > ') AS `path`
  FROM TABLE(SESSION(TABLE `visits` PARTITION BY `uid`, DESCRIPTOR(`ts_rowtime`), INTERVAL '5' SECOND)) AS `visits`
  GROUP BY `visits`.`uid`, `visits`.`window_start`, `visits`.`window_end`;
END;
