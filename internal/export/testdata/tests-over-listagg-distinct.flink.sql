-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:10: stream clicks: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:14: rows late for this OVER window (below the watermark, SPEC 2.9) go to the side output 'late'; Flink has no late output: it drops them in streaming mode and keeps them in batch mode
--   query.sql:16: COUNT(DISTINCT …) OVER: SPEC 2.9's OVER takes every aggregate of 2.4, COUNT(DISTINCT x) included; Flink's validator refuses DISTINCT in an OVER aggregate ("Distinct not supported in Windowing function")

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `clicks` (
  `uid` STRING,
  `page` STRING,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/clicks.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `uid` STRING,
  `page` STRING,
  `ts` TIMESTAMP(3),
  `path` STRING,
  `pages` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `clicks`.`uid`, `clicks`.`page`, `clicks`.`ts`, LISTAGG(`clicks`.`page`, ' > ') OVER (PARTITION BY `clicks`.`uid` ORDER BY `clicks`.`ts` RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) AS `path`, COUNT(DISTINCT `clicks`.`page`) OVER (PARTITION BY `clicks`.`uid` ORDER BY `clicks`.`ts` RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) AS `pages`
  FROM `clicks` AS `clicks`;
END;
