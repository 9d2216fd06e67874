-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:1: stream orders: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `orders` (
  `product` STRING,
  `qty` BIGINT,
  `price` DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/orders.csv',
  'format' = 'csv',
  'csv.null-literal' = 'NULL'
);

CREATE TABLE `main` (
  `product` STRING,
  `n` BIGINT,
  `total_qty` BIGINT,
  `avg_qty` DOUBLE,
  `min_price` DOUBLE,
  `max_price` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `orders`.`product`, COUNT(*) AS `n`, SUM(`orders`.`qty`) AS `total_qty`, AVG(CAST(`orders`.`qty` AS DOUBLE)) AS `avg_qty`, MIN(`orders`.`price`) AS `min_price`, MAX(`orders`.`price`) AS `max_price`
  FROM `orders` AS `orders`
  GROUP BY `orders`.`product` HAVING (COUNT(*)) >= (2);
END;
