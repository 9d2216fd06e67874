-- An outer join whose WHERE drops every row it pads (Flink's outer-join
-- simplification, as a `streamql test` case: streamql test queries/tests).
-- customers FULL JOIN orders pads a customer without orders (eve) and an
-- order without a customer (c4's). WHERE o.amount >= 10
-- AND c.name <> '' is NULL for both kinds of padded row, so WHERE keeps
-- none of them: the join gives the rows of an INNER join, and the planner
-- plans it as one (EXPLAIN's Join node: "type: FULL -> INNER (WHERE
-- c.name != '' AND o.amount >= 10 rejects NULL rows)"). An INNER join of
-- two append-only streams is append-only, so the output has no op column:
-- no padded row is emitted and taken back when its partner comes, and a
-- sink that takes only inserts (a csv file, Kafka) takes it. Both streams
-- have event time: rows are held until both watermarks pass them and
-- joined in event-time order, the same for every interleaving.
-- `streamql export --flink` keeps the FULL JOIN and the WHERE as written.
CREATE STREAM customers (
  cid  VARCHAR,
  name VARCHAR,
  ts   TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'file', 'path' = 'customers.csv', 'format' = 'csv');

CREATE STREAM orders (
  cid    VARCHAR,
  amount DOUBLE,
  ts     TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv');

SELECT c.cid, c.name, o.amount, o.ts
  FROM customers c FULL JOIN orders o ON c.cid = o.cid
  WHERE o.amount >= 10 AND c.name <> '';
