-- Flink SQL (Flink 2.x), written by `streamql export --flink` from datagen_orders.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   datagen_orders.sql:8: stream orders: Flink's datagen draws other random rows than streamql's seeded generator ('seed' has no Flink equivalent)
--   datagen_orders.sql:11: stream orders: Flink's datagen has no 'fields.product.values' (values to pick from): the column gets random values

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `orders` (
  `product` STRING,
  `qty` BIGINT
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '1',
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
