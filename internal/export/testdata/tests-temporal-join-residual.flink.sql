-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:9: stream orders: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:17: stream rates: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:25: the join's rows of o that are late (below its watermark, SPEC 2.7) go to the side output 'late-o'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:25: the join's rows of r that are late (below its watermark, SPEC 2.7) go to the side output 'late-r'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:29: the join's rows of o that are late (below its watermark, SPEC 2.7) go to the side output 'late-o'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:29: the join's rows of r that are late (below its watermark, SPEC 2.7) go to the side output 'late-r'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

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
  `rate` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

CREATE TABLE `inner` (
  `id` STRING,
  `converted` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'inner');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `o`.`id`, `o`.`currency`, `r`.`rate`
  FROM `orders` AS `o` LEFT JOIN `rates` FOR SYSTEM_TIME AS OF `o`.`ts` AS `r` ON ((`o`.`currency`) = (`r`.`currency`)) AND ((`r`.`rate`) > (100));
INSERT INTO `inner`
  SELECT `o`.`id`, (`o`.`amount`) * (`r`.`rate`) AS `converted`
  FROM `orders` AS `o` JOIN `rates` FOR SYSTEM_TIME AS OF `o`.`ts` AS `r` ON ((`o`.`currency`) = (`r`.`currency`)) AND ((`r`.`rate`) > (100));
END;
