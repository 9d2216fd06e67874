-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:11: stream orders: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:19: stream payments: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:27: the join's rows of o that are late (below its watermark, SPEC 2.7) go to the side output 'late-orders'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:27: the join's rows of p that are late (below its watermark, SPEC 2.7) go to the side output 'late-payments'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `orders` (
  `id` STRING,
  `customer` STRING,
  `amount` DOUBLE,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '1' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/orders.csv',
  'format' = 'csv'
);

CREATE TABLE `payments` (
  `id` STRING,
  `order_id` STRING,
  `amount` DOUBLE,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/payments.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `id` STRING,
  `customer` STRING,
  `amount` DOUBLE,
  `payment` STRING,
  `paid_at` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `o`.`id`, `o`.`customer`, `o`.`amount`, `p`.`id` AS `payment`, `p`.`ts` AS `paid_at`
  FROM `orders` AS `o` LEFT JOIN `payments` AS `p` ON ((`p`.`order_id`) = (`o`.`id`)) AND ((`p`.`ts`) BETWEEN (`o`.`ts`) AND ((`o`.`ts`) + INTERVAL '10' MINUTE));
END;
