-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:21: rows late for this OVER window (below the watermark, SPEC 2.9) go to the side output 'late'; Flink has no late output: it drops them in streaming mode and keeps them in batch mode

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

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

CREATE TABLE `main` (
  `k` STRING,
  `n` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `k` STRING,
  `d` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `k` STRING,
  `n` BIGINT,
  `ts` BIGINT,
  `running` BIGINT,
  `seen` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_4` (
  `k` STRING,
  `ts` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `items`.`k`, `items`.`n`
  FROM `items` AS `items`
  ORDER BY `items`.`n`, `items`.`k` LIMIT 3;
INSERT INTO `main_2`
  SELECT `items`.`k`, (`items`.`n`) * (2) AS `d`
  FROM `items` AS `items`
  ORDER BY `d` DESC, `items`.`k` LIMIT 2;
INSERT INTO `main_3`
  SELECT `items`.`k`, `items`.`n`, `items`.`ts`, SUM(`items`.`n`) OVER (PARTITION BY `items`.`k` ORDER BY `items`.`ts_rowtime` ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS `running`, COUNT(1) OVER (PARTITION BY `items`.`k` ORDER BY `items`.`ts_rowtime` ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS `seen`
  FROM `items` AS `items`;
INSERT INTO `main_4`
  SELECT `items`.`k`, `items`.`ts`
  FROM `items` AS `items`
  ORDER BY `items`.`ts` DESC;
END;
