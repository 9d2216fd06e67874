-- SPEC 2.5, SPEC 4 (EXPLAIN's strategy): a job in a consumer group that keeps state says
-- whether a crash or a partition move keeps it ("replayed": read again from the committed
-- offsets) or loses it ("not replayed", with a note naming the operator and why). A lookup
-- join holds no probe row, or holds them only until the probe watermark passes them
-- (replayed); a window Top-N over a window TVF's rows is replayed; a temporal join of two streams
-- of the group is replayed (from each partition's oldest held row or current version). (EXPLAIN
-- plans only: no broker is needed.)
CREATE STREAM orders (id BIGINT, k VARCHAR)
  WITH ('connector'='kafka', 'topic'='orders', 'properties.bootstrap.servers'='127.0.0.1:9092', 'format'='csv',
        'properties.group.id'='g1');
CREATE STREAM timed (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector'='kafka', 'topic'='timed', 'properties.bootstrap.servers'='127.0.0.1:9092', 'format'='csv',
        'properties.group.id'='g1');
CREATE STREAM rates (k VARCHAR, rate BIGINT, ts BIGINT, WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector'='kafka', 'topic'='rates', 'properties.bootstrap.servers'='127.0.0.1:9092', 'format'='csv',
        'properties.group.id'='g1');
CREATE STREAM customers (k VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='customers.csv');
EXPLAIN SELECT o.id, c.name FROM orders o LEFT JOIN customers c ON o.k = c.k;
EXPLAIN SELECT o.id, c.name FROM timed o JOIN customers c ON o.k = c.k;
EXPLAIN SELECT k, COUNT(*) AS n FROM orders GROUP BY k;
EXPLAIN SELECT window_start, k, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY id DESC) AS rn
  FROM TABLE(TUMBLE(TABLE timed, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 2;
EXPLAIN SELECT t.id, r.rate FROM timed t JOIN rates FOR SYSTEM_TIME AS OF t.ts AS r ON t.k = r.k;
