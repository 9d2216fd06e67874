-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:8: stream bids: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:9: stream users: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:23: stream offers.csv: Flink's csv format has no header line option: the first line is read as a row (remove it from the file, or map columns by position)
--   query.sql:23: stream offers.csv: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `bids` (
  `k` STRING,
  `p` BIGINT,
  `ts` TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/bids.csv',
  'format' = 'csv'
);

CREATE TABLE `users` (
  `k` STRING,
  `name` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/users.csv',
  'format' = 'csv'
);

CREATE TABLE `offers.csv` (
  `item` STRING,
  `price` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/offers.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `k` STRING,
  `p` BIGINT,
  `rn` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `name` STRING,
  `top_bid` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `item` STRING,
  `price` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `k`, `p`, `rn`
  FROM (SELECT `bids`.`k`, `bids`.`p`, `bids`.`ts`, ROW_NUMBER() OVER (PARTITION BY `bids`.`k` ORDER BY `bids`.`p` DESC) AS `rn` FROM `bids` AS `bids`) AS `ranked_bids`
  WHERE (`rn`) <= (2);
INSERT INTO `main_2`
  SELECT `u`.`name`, `b`.`p` AS `top_bid`
  FROM `users` AS `u` JOIN (SELECT `bids`.`k`, `bids`.`p`, `bids`.`ts`, ROW_NUMBER() OVER (PARTITION BY `bids`.`k` ORDER BY `bids`.`p` DESC) AS `rn` FROM `bids` AS `bids`) AS `b` ON (`u`.`k`) = (`b`.`k`)
  WHERE (`b`.`rn`) = (1);
INSERT INTO `main_3`
  SELECT `item`, `price`
  FROM (SELECT `offers.csv`.`item`, `offers.csv`.`price`, ROW_NUMBER() OVER (PARTITION BY `offers.csv`.`item` ORDER BY `offers.csv`.`price`) AS `rn` FROM `offers.csv` AS `offers.csv`) AS `cheapest`
  WHERE (`rn`) = (1);
END;
