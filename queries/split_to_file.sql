-- The sensor split of split_sensors.sql with its high-temperature rows written
-- to a file sink (SPEC 2.5) instead of a side output. Run it with:
--   go run ./cmd/streamql queries/split_to_file.sql
-- Rows above 70 degrees go to the file split_to_file.high-tmp.csv (a csv with
-- a header line, replaced at each run), rows below 10 to the side output
-- 'low-tmp', and the rest to the main output (first match wins).
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,         -- event time, epoch milliseconds
  temperature DOUBLE
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');

CREATE STREAM high_tmp (deviceNo VARCHAR, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'split_to_file.high-tmp.csv', 'format' = 'csv');

SELECT deviceNo, temperature INTO SIDE 'low-tmp'  FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO STREAM high_tmp FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
