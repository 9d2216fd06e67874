-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:10: stream orders: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:19: stream rates: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:25: the join's rows of o that are late (below its watermark, SPEC 2.7) go to the side output 'late-o'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `orders` (
  `id` STRING,
  `country` STRING,
  `region` STRING,
  `weight` DOUBLE,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/orders.csv',
  'format' = 'csv'
);

CREATE TABLE `rates` (
  `country` STRING,
  `region` STRING,
  `per_kg` DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/rates.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `id` STRING,
  `country` STRING,
  `region` STRING,
  `shipping` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `o`.`id`, `o`.`country`, `o`.`region`, (`o`.`weight`) * (`r`.`per_kg`) AS `shipping`
  FROM `orders` AS `o` LEFT JOIN `rates` AS `r` ON ((`o`.`country`) = (`r`.`country`)) AND ((`o`.`region`) IS NOT DISTINCT FROM (`r`.`region`));
END;
