-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:1: stream s1: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:2: stream s2: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `s1` (
  `k` STRING,
  `v` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/s1.csv',
  'format' = 'csv'
);

CREATE TABLE `s2` (
  `k` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/s2.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `k` STRING,
  `v` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `s1`.`k`, `s1`.`v`
  FROM `s1` AS `s1`
  WHERE EXISTS (SELECT 1 FROM `s2` WHERE (`s1`.`k`) = (`s2`.`k`));
END;
