-- Window aggregates inside views, a WITH name and a subquery (SPEC 2.6):
-- each one's late rows go to 'late' in streamql, which Flink drops, so the
-- export lists each (not "none").
CREATE STREAM sensors (dev VARCHAR, temp DOUBLE, et TIMESTAMP(3), WATERMARK FOR et AS et - INTERVAL '5' SECOND)
  WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE VIEW cnt AS SELECT window_start, window_end, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(et), INTERVAL '30' MINUTE)) GROUP BY window_start, window_end;
CREATE VIEW hot AS SELECT window_start, window_end, MAX(temp) AS m
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(et), INTERVAL '30' MINUTE)) GROUP BY window_start, window_end;
SELECT c.window_start, c.n, h.m FROM cnt AS c JOIN hot AS h ON c.window_start = h.window_start AND c.window_end = h.window_end;
WITH lo AS (SELECT dev, window_start, window_end, MIN(temp) AS t
  FROM TABLE(HOP(TABLE sensors, DESCRIPTOR(et), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE)) GROUP BY dev, window_start, window_end)
SELECT dev, t FROM lo WHERE t < 0;
SELECT dev, s FROM (SELECT dev, window_end, SUM(temp) AS s
  FROM TABLE(CUMULATE(TABLE sensors, DESCRIPTOR(et), INTERVAL '10' MINUTE, INTERVAL '1' HOUR)) GROUP BY dev, window_start, window_end) AS q WHERE s > 100;
-- a view over a view: the window aggregate two levels down is listed too
CREATE VIEW busy AS SELECT window_start, n FROM cnt WHERE n > 5;
SELECT window_start FROM busy;
