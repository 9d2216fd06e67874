-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:26: the join's rows of o that are late (below its watermark, SPEC 2.7) go to the side output 'late-o'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:26: the join's rows of r that are late (below its watermark, SPEC 2.7) go to the side output 'late-r'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:31: an aggregate without a window (GROUP BY, DISTINCT; SPEC 2.4): streamql writes its result once, final; this export runs in Flink's streaming mode (the script has an event-time temporal join, which Flink's batch mode does not run), where the result is a changelog (+I, -U, +U, -D) that ends in the same rows, and a filesystem or kafka sink refuses it; export this query in a script of its own to run it in Flink's batch mode
--   query.sql:35: a Top-N (SPEC 2.9): streamql writes its result once, final; this export runs in Flink's streaming mode (the script has an event-time temporal join, which Flink's batch mode does not run), where the result is a changelog (+I, -U, +U, -D) that ends in the same rows, and a filesystem or kafka sink refuses it; export this query in a script of its own to run it in Flink's batch mode

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but Flink's batch mode runs no event-time temporal join (SPEC 2.7): streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `orders` (
  `id` STRING,
  `currency` STRING,
  `amount` BIGINT,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS `ts`
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/orders.csv',
  'format' = 'csv'
);

CREATE TABLE `rates` (
  `currency` STRING,
  `rate` BIGINT,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS `ts`,
  PRIMARY KEY (`currency`) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/rates.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `id` STRING,
  `currency` STRING,
  `converted` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_2` (
  `currency` STRING,
  `total` BIGINT,
  `orders` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `main_3` (
  `currency` STRING,
  `id` STRING,
  `amount` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `o`.`id`, `o`.`currency`, (`o`.`amount`) * (`r`.`rate`) AS `converted`
  FROM `orders` AS `o` LEFT JOIN `rates` FOR SYSTEM_TIME AS OF `o`.`ts` AS `r` ON (`o`.`currency`) = (`r`.`currency`);
INSERT INTO `main_2`
  SELECT `orders`.`currency`, SUM(`orders`.`amount`) AS `total`, COUNT(*) AS `orders`
  FROM `orders` AS `orders`
  GROUP BY `orders`.`currency`;
INSERT INTO `main_3`
  SELECT `currency`, `id`, `amount`
  FROM (SELECT `orders`.`currency`, `orders`.`id`, `orders`.`amount`, ROW_NUMBER() OVER (PARTITION BY `orders`.`currency` ORDER BY `orders`.`amount` DESC, `orders`.`id`) AS `rn` FROM `orders` AS `orders`)
  WHERE (`rn`) = (1);
END;
