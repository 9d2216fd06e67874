-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:15: stream customers: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:22: stream orders: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:29: the join's rows of c that are late (below its watermark, SPEC 2.7) go to the side output 'late-c'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them
--   query.sql:29: the join's rows of o that are late (below its watermark, SPEC 2.7) go to the side output 'late-o'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `customers` (
  `cid` STRING,
  `name` STRING,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/customers.csv',
  'format' = 'csv'
);

CREATE TABLE `orders` (
  `cid` STRING,
  `amount` DOUBLE,
  `ts` TIMESTAMP(3),
  WATERMARK FOR `ts` AS (`ts`) - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/orders.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `cid` STRING,
  `name` STRING,
  `amount` DOUBLE,
  `ts` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `c`.`cid`, `c`.`name`, `o`.`amount`, `o`.`ts`
  FROM `customers` AS `c` FULL JOIN `orders` AS `o` ON (`c`.`cid`) = (`o`.`cid`)
  WHERE ((`o`.`amount`) >= (10)) AND ((`c`.`name`) <> (''));
END;
