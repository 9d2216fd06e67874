-- Flink SQL (Flink 2.x), written by `streamql export --flink` from topn_over_relations.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   topn_over_relations.sql:4: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   topn_over_relations.sql:9: ROW_NUMBER over rows that tie on its ORDER BY: streamql numbers them in arrival order, Flink in an order of its parallel instances, so the rows kept among ties may differ; add a column to ORDER BY that breaks ties

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `sensors` (
  `dev` STRING,
  `temp` DOUBLE,
  `et` TIMESTAMP(3),
  WATERMARK FOR `et` AS (`et`) - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/sensors.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `dev` STRING,
  `temp` DOUBLE,
  `rn` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `dev` STRING,
  `temp` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `dev` STRING,
  `temp` DOUBLE,
  `r` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT *
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `dev` ORDER BY `temp` DESC) AS `rn` FROM (SELECT * FROM (SELECT `sensors`.`dev`, `sensors`.`temp` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) > (0))) AS `a`) AS `b`)
  WHERE (`rn`) <= (2);
INSERT INTO `main_2`
  SELECT `dev`, `temp`
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `dev` ORDER BY `et` DESC) AS `rn` FROM (SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) > (20))) AS `warm`)
  WHERE (`rn`) = (1);
INSERT INTO `main_3`
  SELECT *
  FROM (SELECT *, RANK() OVER (PARTITION BY `dev` ORDER BY `temp`) AS `r` FROM (SELECT `sensors`.`dev`, `sensors`.`temp` FROM `sensors` AS `sensors`) AS `c`)
  WHERE (`r`) <= (3);
END;
