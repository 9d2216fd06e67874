-- The main job: split the sensor stream of Flink's TempStageProcess example into
-- side outputs in one scan. Run it with:
--   go run ./cmd/streamql queries/split_sensors.sql
-- Rows below 10 degrees go to side output 'low-tmp', rows above 70 to 'high-tmp',
-- and the rest to the main output (first match wins, like if / else if / else).
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,         -- event time, epoch milliseconds
  temperature DOUBLE
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');

SELECT deviceNo, temperature INTO SIDE 'low-tmp'  FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
