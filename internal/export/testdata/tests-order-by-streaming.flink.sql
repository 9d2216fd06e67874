-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:18: ORDER BY the event time over a bounded input: streamql sorts every row when the input ends, Flink's streaming sort on the time attribute drops rows below the watermark
--   query.sql:27: ORDER BY `items`.`n`, `items`.`k` in streaming mode: Flink's streaming mode sorts only on a time attribute ascending, so the export leaves this ORDER BY out and Flink writes the rows unsorted (streamql sorts them, SPEC 2.9)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- The script sets 'execution.runtime-mode' = 'streaming': updating results are changelogs in both engines (SPEC 2.8).
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `items` (
  `k` STRING,
  `n` BIGINT,
  `ts` BIGINT,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ((`ts`) - 1000, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/items.json',
  'format' = 'json'
);

CREATE TABLE `arrivals` (
  `k` STRING,
  `n` BIGINT,
  `ts` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/items.json',
  'format' = 'json'
);

CREATE TABLE `main` (
  `k` STRING,
  `n` BIGINT,
  `ts` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `k` STRING,
  `n` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `n` BIGINT,
  `k` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `items`.`k`, `items`.`n`, `items`.`ts`
  FROM `items` AS `items`
  ORDER BY `items`.`ts_rowtime`, `items`.`k`;
INSERT INTO `main_2`
  SELECT `arrivals`.`k`, `arrivals`.`n`
  FROM `arrivals` AS `arrivals`
  ORDER BY `arrivals`.`n` DESC, `arrivals`.`k` LIMIT 2;
INSERT INTO `main_3`
  SELECT `items`.`n`, `items`.`k`
  FROM `items` AS `items`;
END;
