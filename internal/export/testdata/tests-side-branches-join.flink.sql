-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:11: stream orders: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:19: stream payments: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:27: CURRENT_WATERMARK is the watermark before each row in streamql (SPEC 2.3); in Flink it is the last watermark the source's periodic generator emitted ('pipeline.auto-watermark-interval'), so rows streamql finds late may be on time in Flink
--   query.sql:30: the join's rows of o that are late (below its watermark, SPEC 2.7) go to the side output 'late-o'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:30: the join's rows of p that are late (below its watermark, SPEC 2.7) go to the side output 'late-p'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

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

CREATE TABLE `late-order` (
  `id` STRING,
  `ts` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'late-order');

CREATE TABLE `vip` (
  `id` STRING,
  `amount` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'vip');

CREATE TABLE `main` (
  `id` STRING,
  `customer` STRING,
  `amount` DOUBLE,
  `payment` STRING,
  `paid_at` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `late-order`
  SELECT `orders`.`id`, `orders`.`ts`
  FROM `orders` AS `orders`
  WHERE ((`orders`.`ts`) < (CURRENT_WATERMARK(`orders`.`ts`))) IS TRUE;
INSERT INTO `vip`
  SELECT `orders`.`id`, `orders`.`amount`
  FROM `orders` AS `orders`
  WHERE ((`orders`.`customer`) = ('dave')) IS TRUE
    AND ((`orders`.`ts`) < (CURRENT_WATERMARK(`orders`.`ts`))) IS NOT TRUE;
INSERT INTO `main`
  SELECT `o`.`id`, `o`.`customer`, `o`.`amount`, `p`.`id` AS `payment`, `p`.`ts` AS `paid_at`
  FROM (SELECT * FROM `orders` AS `o` WHERE ((`o`.`ts`) < (CURRENT_WATERMARK(`o`.`ts`))) IS NOT TRUE AND ((`o`.`customer`) = ('dave')) IS NOT TRUE) AS `o` LEFT JOIN `payments` AS `p` ON ((`p`.`order_id`) = (`o`.`id`)) AND ((`p`.`ts`) BETWEEN (`o`.`ts`) AND ((`o`.`ts`) + INTERVAL '10' MINUTE));
END;
