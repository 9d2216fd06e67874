-- Flink SQL (Flink 2.x), written by `streamql export --flink` from file_literal_relations.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   file_literal_relations.sql:6: stream offers.csv: Flink's csv format has no header line option: the first line is read as a row (remove it from the file, or map columns by position)
--   file_literal_relations.sql:6: stream offers.csv: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `offers.csv` (
  `item` STRING,
  `price` BIGINT,
  `ts` TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/offers.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `item` STRING,
  `price` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `item` STRING,
  `price` BIGINT,
  `rn` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `item` STRING,
  `price` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_4` (
  `item` STRING,
  `price` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_5` (
  `item` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `item`, `price`
  FROM (SELECT `offers.csv`.`item`, `offers.csv`.`price`, `offers.csv`.`ts`, ROW_NUMBER() OVER (PARTITION BY `offers.csv`.`item` ORDER BY `offers.csv`.`price`) AS `rn` FROM `offers.csv` AS `offers.csv`) AS `cheapest`
  WHERE (`rn`) = (1);
INSERT INTO `main_2`
  SELECT `item`, `price`, `rn`
  FROM (SELECT `offers.csv`.`item`, `offers.csv`.`price`, `offers.csv`.`ts`, ROW_NUMBER() OVER (PARTITION BY `offers.csv`.`item` ORDER BY `offers.csv`.`price` DESC) AS `rn` FROM `offers.csv` AS `offers.csv`) AS `ranked`
  WHERE (`rn`) <= (2);
INSERT INTO `main_3`
  SELECT `item`, `price`
  FROM (SELECT `offers.csv`.`item`, `offers.csv`.`price`, `offers.csv`.`ts`, ROW_NUMBER() OVER (PARTITION BY `offers.csv`.`item` ORDER BY `offers.csv`.`price`) AS `rn` FROM `offers.csv` AS `offers.csv`) AS `t`
  WHERE (`rn`) = (1);
INSERT INTO `main_4`
  SELECT *
  FROM (SELECT `offers.csv`.`item`, `offers.csv`.`price` FROM `offers.csv` AS `offers.csv` WHERE ((`offers.csv`.`price`) > (3))) AS `dear`;
INSERT INTO `main_5`
  SELECT `offers.csv`.`item`
  FROM `offers.csv` AS `offers.csv`
  WHERE (`offers.csv`.`price`) < (3);
END;
