-- Flink SQL (Flink 2.x), written by `streamql export --flink` from filter_by_stream.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   filter_by_stream.sql:6: stream stream1: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   filter_by_stream.sql:7: stream stream2: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `stream1` (
  `k` STRING,
  `v` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/stream1.csv',
  'format' = 'csv'
);

CREATE TABLE `stream2` (
  `k` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/stream2.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `k` STRING,
  `v` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `k` STRING,
  `v` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `k` STRING,
  `v` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `s1`.`k`, `s1`.`v`
  FROM `stream1` AS `s1`
  WHERE EXISTS (SELECT 1 FROM `stream2` AS `s2` WHERE (`s1`.`k`) = (`s2`.`k`));
INSERT INTO `main_2`
  SELECT `stream1`.`k`, `stream1`.`v`
  FROM `stream1` AS `stream1`
  WHERE (`stream1`.`k`) IN (SELECT `k` FROM `stream2`);
INSERT INTO `main_3`
  SELECT `s1`.`k`, `s1`.`v`
  FROM `stream1` AS `s1`
  WHERE NOT EXISTS (SELECT 1 FROM `stream2` AS `s2` WHERE (`s1`.`k`) = (`s2`.`k`));
END;
