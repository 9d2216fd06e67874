-- A SESSION window TVF over a view (SPEC 2.6): its PARTITION BY follows the
-- relation the TVF reads.
CREATE STREAM sensors (dev VARCHAR, temp DOUBLE, et TIMESTAMP(3), WATERMARK FOR et AS et - INTERVAL '5' SECOND)
  WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE VIEW warm AS SELECT dev, temp, et FROM sensors WHERE temp >= 10;
SELECT dev, window_start, COUNT(*) AS n FROM TABLE(SESSION(TABLE warm PARTITION BY dev, DESCRIPTOR(et), INTERVAL '10' MINUTE)) GROUP BY dev, window_start, window_end;
