-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:8: stream scores: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `scores` (
  `name` STRING,
  `subject` STRING,
  `score` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/scores.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `subject` STRING,
  `name` STRING,
  `score` BIGINT,
  `r` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `subject`, `name`, `score`, `r`
  FROM (SELECT `scores`.`name`, `scores`.`subject`, `scores`.`score`, RANK() OVER (PARTITION BY `scores`.`subject` ORDER BY `scores`.`score` DESC) AS `r` FROM `scores` AS `scores`)
  WHERE (`r`) BETWEEN (2) AND (3);
END;
