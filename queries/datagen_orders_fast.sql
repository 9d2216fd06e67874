-- The order split of datagen_orders.sql as fast as the machine goes: without
-- 'rows-per-second' the generator does not wait, and 'number-of-rows' ends the
-- stream. The same 'seed' gives the same orders on every run. Run it with:
--   go run ./cmd/streamql queries/datagen_orders_fast.sql
-- For speed, raise 'number-of-rows' (e.g. to 10000000) and write the sides to files:
--   go run ./cmd/streamql --timer --side-dir /tmp/orders queries/datagen_orders_fast.sql
CREATE STREAM orders (product VARCHAR, qty BIGINT) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '12',
  'seed' = '2021',
  'fields.product.values' = 'a苹果,b梨,c西瓜,d葡萄,e火龙果',
  'fields.qty.min' = '1',
  'fields.qty.max' = '9'
);

SELECT * INTO SIDE 'pre' FROM orders
  WHERE product LIKE '%a%' OR product LIKE '%b%' OR product LIKE '%c%';
SELECT * INTO SIDE 'post' FROM orders;
RUN;
