-- A database table's change log read as an updating stream (SPEC 2.8): the
-- Debezium records of the products table of Debezium's MySQL tutorial (the
-- example of Flink's debezium-json docs), one JSON envelope per line, and the
-- heavy products kept as a change log of their own. Run it with:
--   go run ./cmd/streamql queries/cdc_products.sql
-- Each record becomes rows with kinds: op r and c insert (+I), u is the row
-- before (-U) and after (+U), d deletes (-D). The filter passes each row with
-- its kind, as Flink does, so the sink's table is the heavy products: 103
-- leaves it when it gets lighter (its -U passes, its +U does not: written as
-- a delete), 101 enters it (its +U alone: a create), 102 is deleted. The sink
-- writes Debezium's envelope to cdc_products.heavy.json (an update's -U and +U
-- as one u record). The record with op "t" (a TRUNCATE, which Flink's
-- debezium-json does not read either) goes to the errors output with its line.
CREATE STREAM products (
  id          BIGINT,
  name        VARCHAR,
  description VARCHAR,
  weight      DOUBLE,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'file', 'path' = 'products.debezium.json', 'format' = 'debezium-json');

CREATE STREAM heavy (id BIGINT, name VARCHAR, weight DOUBLE)
  WITH ('connector' = 'file', 'path' = 'cdc_products.heavy.json', 'format' = 'debezium-json');

INSERT INTO heavy SELECT id, name, weight FROM products WHERE weight > 5;
