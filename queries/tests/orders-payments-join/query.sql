-- An interval join (SPEC 2.7): each order with the payments made within ten
-- minutes after it, as a `streamql test` case (run: streamql test queries/tests).
-- Both streams have event time, so the join holds each row until both
-- watermarks have passed it and joins rows in event-time order: the output is
-- the same however the two files' rows interleave. A LEFT JOIN pads an order
-- that got no payment in time once the payments' watermark has passed the end
-- of its ten minutes (o3, paid after 13 minutes). o6 comes after the orders'
-- watermark (10:20 - 1 minute) moved past it: it is late and goes, as it came,
-- to 'late-orders'. The payments come in order, so their watermark needs no
-- more than a second's delay (streamql tune suggests 0).
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

SELECT o.id, o.customer, o.amount, p.id AS payment, p.ts AS paid_at
  FROM orders o LEFT JOIN payments p
    ON p.order_id = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '10' MINUTE
  LATE INTO SIDE 'late-orders', 'late-payments';
