-- Flink SQL (Flink 2.x), written by `streamql export --flink` from cdc_products.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   cdc_products.sql:14: stream products: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   cdc_products.sql:22: stream heavy: as a sink, Flink's filesystem connector writes a directory of part files at 'path' (csv without a header line, committed at checkpoints or the job's end), not one file replaced or appended to ('sink.mode')

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but Flink's batch mode reads no changelog source (SPEC 2.8): streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `products` (
  `id` BIGINT,
  `name` STRING,
  `description` STRING,
  `weight` DOUBLE,
  PRIMARY KEY (`id`) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/products.debezium.json',
  'format' = 'debezium-json'
);

CREATE TABLE `heavy` (
  `id` BIGINT,
  `name` STRING,
  `weight` DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/cdc_products.heavy.json',
  'format' = 'debezium-json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `heavy`
  SELECT `products`.`id`, `products`.`name`, `products`.`weight`
  FROM `products` AS `products`
  WHERE (`products`.`weight`) > (5);
END;
