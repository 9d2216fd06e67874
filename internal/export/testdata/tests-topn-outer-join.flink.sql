-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:10: stream bids: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:11: stream users: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

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

CREATE TABLE `main` (
  `name` STRING,
  `p` BIGINT,
  `rn` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `k` STRING,
  `p` BIGINT,
  `name` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `u`.`name`, `t`.`p`, `t`.`rn`
  FROM `users` AS `u` LEFT JOIN (SELECT `bids`.`k`, `bids`.`p`, `bids`.`ts`, ROW_NUMBER() OVER (PARTITION BY `bids`.`k` ORDER BY `bids`.`p` DESC) AS `rn` FROM `bids` AS `bids`) AS `t` ON (`u`.`k`) = (`t`.`k`)
  WHERE (`t`.`rn`) <= (2);
INSERT INTO `main_2`
  SELECT `t`.`k`, `t`.`p`, `u`.`name`
  FROM (SELECT `bids`.`k`, `bids`.`p`, `bids`.`ts`, ROW_NUMBER() OVER (PARTITION BY `bids`.`k` ORDER BY `bids`.`p` DESC) AS `rn` FROM `bids` AS `bids`) AS `t` FULL JOIN `users` AS `u` ON (`t`.`k`) = (`u`.`k`)
  WHERE (`t`.`rn`) <= (2);
END;
