-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:13: ORDER BY … LIMIT over rows that tie on its keys at the last place kept: streamql keeps the first that arrived, Flink any of them; add a key that breaks ties
--   query.sql:15: GROUP BY without a window on an unbounded stream (or in streaming mode) is an updating result in both engines, but Flink's print sink shows its changelog (+I, -U, +U) and a filesystem or kafka sink refuses it
--   query.sql:15: ORDER BY … LIMIT over rows that tie on its keys at the last place kept: streamql keeps the first that arrived, Flink any of them; add a key that breaks ties
--   query.sql:17: ROW_NUMBER over rows that tie on its ORDER BY: streamql numbers them in arrival order, Flink in an order of its parallel instances, so the rows kept among ties may differ; add a column to ORDER BY that breaks ties

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- The script sets 'execution.runtime-mode' = 'streaming': updating results are changelogs in both engines (SPEC 2.8).
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `ks` (
  `k` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/keys.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `k` STRING,
  `c` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `k` STRING,
  `c` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `k` STRING,
  `c` BIGINT,
  `rn` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `k`, `c`
  FROM (SELECT `ks`.`k`, COUNT(*) AS `c` FROM `ks` AS `ks` GROUP BY `ks`.`k`)
  ORDER BY `c` DESC LIMIT 2;
INSERT INTO `main_2`
  SELECT `ks`.`k`, COUNT(*) AS `c`
  FROM `ks` AS `ks`
  GROUP BY `ks`.`k`
  ORDER BY `c` DESC LIMIT 2;
INSERT INTO `main_3`
  SELECT `k`, `c`, `rn`
  FROM (SELECT `k`, `c`, ROW_NUMBER() OVER (ORDER BY `c` DESC) AS `rn` FROM (SELECT `ks`.`k`, COUNT(*) AS `c` FROM `ks` AS `ks` GROUP BY `ks`.`k`))
  WHERE (`rn`) <= (2);
END;
