-- Flink SQL (Flink 2.x), written by `streamql export --flink` from datagen_orders_fast.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   datagen_orders_fast.sql:7: stream orders: Flink's datagen draws other random rows than streamql's seeded generator ('seed' has no Flink equivalent)
--   datagen_orders_fast.sql:11: stream orders: Flink's datagen has no 'fields.product.values' (values to pick from): the column gets random values

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE `orders` (
  `product` STRING,
  `qty` BIGINT
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '12',
  'fields.qty.max' = '9',
  'fields.qty.min' = '1'
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
