-- Flink SQL (Flink 2.x), written by `streamql export --flink` from socket_filter.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   socket_filter.sql:10: stream kv: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   socket_filter.sql:11: stream kv: connector 'socket' has no Flink connector; the table reads the file 'kv.csv' instead: replace it by your source

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `kv` (
  `k` STRING,
  `v` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'kv.csv',
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
