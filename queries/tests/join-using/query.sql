-- JOIN ... USING (Flink's, as Calcite validates it), as a `streamql test`
-- case (run: streamql test queries/tests). USING (cid) joins ON c.cid = o.cid,
-- and an unqualified cid (and * too) is the joined key, once: for a FULL JOIN
-- COALESCE(c.cid, o.cid), so the order of c4, which has no customer, keeps its
-- key. Both streams have event time, so the regular join holds each row until
-- both watermarks have passed it and joins rows in event-time order: the
-- output is the same however the files' rows interleave. It is updating (SPEC
-- 2.8): a row without a partner is emitted padded and taken back (-D) when
-- one comes. The rows come in order, so the watermarks need no more than a
-- second's delay (streamql tune suggests 0).
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

SELECT cid, name, amount FROM customers c FULL JOIN orders o USING (cid);
