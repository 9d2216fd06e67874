-- Per-device, per-minute temperature statistics (issue 11 item 5; SPEC 2.4), with
-- late rows to the side output 'late-sensors'. Run it with:
--   streamql test queries/tests          (or: streamql -f query.sql in this folder)
-- A 1-minute TUMBLE window fires once, when the watermark (ts - 5 s) reaches its
-- end, right after the row that moved it; rows fired together come by
-- window_end, window_start, then the order of each device's first row. A row
-- that arrives after its window fired is never dropped: it goes, whole, to
-- 'late-sensors'. The malformed row (ts 'oops') goes to 'errors' and moves
-- no watermark.
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,                                    -- event time, epoch ms
  temperature DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');

SELECT window_start, window_end, deviceNo, COUNT(*) AS n, AVG(temperature) AS avg_t,
       MIN(temperature) AS min_t, MAX(temperature) AS max_t
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, deviceNo
  LATE INTO SIDE 'late-sensors';
