-- A window TVF over a view and over a WITH name (SPEC 2.6): the export
-- keeps the window function, with the relation as its table argument.
CREATE STREAM sensors (dev VARCHAR, temp DOUBLE, et TIMESTAMP(3), WATERMARK FOR et AS et - INTERVAL '5' SECOND)
  WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE VIEW warm AS SELECT dev, temp, et FROM sensors WHERE temp >= 10;
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE warm, DESCRIPTOR(et), INTERVAL '30' MINUTE)) GROUP BY window_start, window_end;
SELECT window_start, window_end, AVG(temp) AS t
  FROM TABLE(HOP(TABLE warm, DESCRIPTOR(et), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE)) AS w
  GROUP BY window_start, window_end;
WITH cold AS (SELECT dev, temp, et FROM sensors WHERE temp < 10)
SELECT window_end, MIN(temp) AS lo FROM TABLE(CUMULATE(TABLE cold, DESCRIPTOR(et), INTERVAL '10' MINUTE, INTERVAL '1' HOUR)) GROUP BY window_start, window_end;
WITH cold AS (SELECT dev, temp, et FROM sensors WHERE temp < 10)
SELECT dev, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE cold, DESCRIPTOR(et), INTERVAL '30' MINUTE)) GROUP BY dev, window_start, window_end;
-- a BIGINT event time (epoch ms) through a view is no Flink time attribute: listed
CREATE STREAM clicks (u VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - 1000)
  WITH ('connector'='file', 'path'='clicks.csv', 'format'='csv');
CREATE VIEW named AS SELECT u, ts FROM clicks WHERE u IS NOT NULL;
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE named, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
