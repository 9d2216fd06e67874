-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:9: stream clicks: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:16: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   query.sql:16: FIRST_VALUE(page) in a SESSION window: Flink merges sessions and its FIRST_VALUE and LAST_VALUE cannot merge, so Flink refuses the query; compute it in a second query over the session's rows

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `clicks` (
  `uid` STRING,
  `ts` TIMESTAMP(3),
  `page` STRING,
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '10' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/clicks.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `uid` STRING,
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `clicks` BIGINT,
  `pages` STRING,
  `entry` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `clicks`.`uid`, `clicks`.`window_start` AS `window_start`, `clicks`.`window_end` AS `window_end`, COUNT(*) AS `clicks`, LISTAGG(`clicks`.`page`, ' > ') AS `pages`, FIRST_VALUE(`clicks`.`page`) AS `entry`
  FROM TABLE(SESSION(TABLE `clicks` PARTITION BY `uid`, DESCRIPTOR(`ts`), INTERVAL '5' MINUTE)) AS `clicks`
  GROUP BY `clicks`.`uid`, `clicks`.`window_start`, `clicks`.`window_end`;
END;
