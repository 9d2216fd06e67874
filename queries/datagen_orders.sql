-- Split a generated order stream (Flink: a DataGen source of (product, qty) at one
-- row per second, split with side outputs "pre" and "post"). Run it live with:
--   go run ./cmd/streamql --format plain queries/datagen_orders.sql
-- A new order shows every second, as "pre> (b梨,3)" or "post> (e火龙果,7)"; Ctrl-C
-- stops it. Without --format, each second's rows show as a table chunk. The
-- bounded, as-fast-as-possible variant is datagen_orders_fast.sql.
-- test: skip
CREATE STREAM orders (product VARCHAR, qty BIGINT) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '1',
  'fields.product.values' = 'a苹果,b梨,c西瓜,d葡萄,e火龙果',
  'fields.qty.min' = '1',
  'fields.qty.max' = '9'
);

-- products a, b and c go to 'pre'; the rest to 'post' (first match wins)
SELECT * INTO SIDE 'pre' FROM orders
  WHERE product LIKE '%a%' OR product LIKE '%b%' OR product LIKE '%c%';
SELECT * INTO SIDE 'post' FROM orders;
RUN;
