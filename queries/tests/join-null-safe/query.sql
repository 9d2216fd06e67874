-- A null-safe join key, as a `streamql test` case (run: streamql test
-- queries/tests). Shipping rates are by country and region, and a country
-- without regions has one rate whose region is NULL. `o.region IS NOT
-- DISTINCT FROM r.region` (Flink's null-safe key; `<=>` too) matches a NULL
-- region with the NULL rate; `o.country = r.country` stays a plain key,
-- whose NULL matches nothing (SPEC 2.7), so the order without a country
-- gets no rate (LEFT: NULL). The rates file is bounded: a lookup join, read
-- whole before the first order. EXPLAIN shows the key as written:
-- `o.region IS NOT DISTINCT FROM r.region`.
CREATE STREAM orders (
  id      VARCHAR,
  country VARCHAR,
  region  VARCHAR,
  weight  DOUBLE,
  ts      TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv', 'csv.null-literal' = '');

CREATE STREAM rates (
  country VARCHAR,
  region  VARCHAR,
  per_kg  DOUBLE
) WITH ('connector' = 'file', 'path' = 'rates.csv', 'format' = 'csv', 'csv.null-literal' = '');

SELECT o.id, o.country, o.region, o.weight * r.per_kg AS shipping
FROM orders o LEFT JOIN rates r
  ON o.country = r.country AND o.region IS NOT DISTINCT FROM r.region;
