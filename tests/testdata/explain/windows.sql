-- SPEC 2.4: the aggregate operator: window function and sizes, time column, keys, aggregates, late output, state
CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector'='file', 'path'='sensors.csv');
CREATE STREAM orders (product VARCHAR, qty BIGINT) WITH ('connector'='file', 'path'='orders.csv');
CREATE STREAM allowed (product VARCHAR) WITH ('connector'='file', 'path'='allowed.csv');
EXPLAIN SELECT window_start, window_end, deviceNo, COUNT(*) AS n, AVG(temperature) AS avg_t
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, deviceNo
  HAVING n > 2 LATE INTO SIDE 'late-sensors';
SELECT window_start, COUNT(DISTINCT deviceNo) AS devices, LISTAGG(deviceNo) AS ids INTO SIDE 'hops'
  FROM TABLE(HOP(TABLE sensors, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE, INTERVAL '-10' SECOND))
  WHERE temperature > 70 GROUP BY window_start, window_end;
EXPLAIN SELECT deviceNo, window_start, window_end, MAX(temperature) FROM TABLE(SESSION(TABLE sensors PARTITION BY deviceNo, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
  GROUP BY deviceNo, window_start, window_end;
DROP SIDE 'hops';
EXPLAIN SELECT * FROM TABLE(CUMULATE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '1' MINUTE)) AS w;
EXPLAIN SELECT product, SUM(qty) AS total FROM orders o SEMI JOIN allowed a ON o.product = a.product GROUP BY product;
EXPLAIN SELECT COUNT(*), VAR_SAMP(qty) FROM orders;
