-- Side branches over a stream that the main query joins (SPEC 2.1, 2.6,
-- 2.7), as a `streamql test` case (run: streamql test queries/tests). The
-- branches pending on orders run with the join, at orders' output, before
-- it: each order goes to the first branch that takes it, in declaration
-- order, and only the orders no branch took reach the interval join. o6
-- comes after the orders' watermark (10:20 - 1 minute) moved past it: the
-- first branch takes it as late, so it never reaches the join's late output;
-- dave's order goes to 'vip'; the rest join their payments made within ten
-- minutes, and o3, paid after 13 minutes, is padded. The payments come in
-- order, so their watermark needs no more than a second's delay.
CREATE STREAM orders (
  id       VARCHAR,
  customer VARCHAR,
  amount   DOUBLE,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv');

CREATE STREAM payments (
  id       VARCHAR,
  order_id VARCHAR,
  amount   DOUBLE,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'file', 'path' = 'payments.csv', 'format' = 'csv');

SELECT id, ts INTO SIDE 'late-order' FROM orders WHERE ts < CURRENT_WATERMARK(ts);
SELECT id, amount INTO SIDE 'vip' FROM orders WHERE customer = 'dave';

SELECT o.id, o.customer, o.amount, p.id AS payment, p.ts AS paid_at
  FROM orders o LEFT JOIN payments p
    ON p.order_id = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '10' MINUTE;
