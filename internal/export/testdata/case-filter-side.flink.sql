-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:1: stream kv: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `kv` (
  `k` STRING,
  `v` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/kv.csv',
  'format' = 'csv'
);

CREATE TABLE `is_not_a` (
  `result` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'is_not_a');

CREATE TABLE `main` (
  `result` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `is_not_a`
  SELECT '不属于a' AS `result`
  FROM `kv` AS `kv`
  WHERE ((`kv`.`k`) <> ('a')) IS TRUE;
INSERT INTO `main`
  SELECT '属于a' AS `result`
  FROM `kv` AS `kv`
  WHERE ((`kv`.`k`) <> ('a')) IS NOT TRUE;
END;
