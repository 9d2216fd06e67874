-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:1: stream orders: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `orders` (
  `product` STRING,
  `qty` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/orders.csv',
  'format' = 'csv'
);

CREATE TABLE `pre` (
  `product` STRING,
  `qty` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'pre');

CREATE TABLE `post` (
  `product` STRING,
  `qty` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'post');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `pre`
  SELECT `orders`.`product`, `orders`.`qty`
  FROM `orders` AS `orders`
  WHERE ((((`orders`.`product`) LIKE ('%a%')) OR ((`orders`.`product`) LIKE ('%b%'))) OR ((`orders`.`product`) LIKE ('%c%'))) IS TRUE;
INSERT INTO `post`
  SELECT `orders`.`product`, `orders`.`qty`
  FROM `orders` AS `orders`
  WHERE ((((`orders`.`product`) LIKE ('%a%')) OR ((`orders`.`product`) LIKE ('%b%'))) OR ((`orders`.`product`) LIKE ('%c%'))) IS NOT TRUE;
END;
