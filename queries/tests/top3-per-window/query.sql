-- The three hottest readings of each minute (a window Top-N, SPEC 2.9). Run it with:
--   streamql test queries/tests          (or: streamql -f query.sql in this folder)
-- ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY … DESC) over a
-- window TVF keeps each window's top rows and emits them, ranked, once, when the
-- window fires (the watermark ts - 5 s reaches its end): append-only. Equal
-- temperatures rank in arrival order. A reading whose minute has already fired goes,
-- whole, to the late output ('late', on stderr in line formats); the malformed row
-- (ts 'oops') goes to 'errors'.
CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,                                    -- event time, epoch ms
  temperature DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');

SELECT window_start, window_end, deviceNo, ts, temperature, rn
  FROM (SELECT window_start, window_end, deviceNo, ts, temperature,
               ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY temperature DESC) AS rn
          FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE)))
 WHERE rn <= 3;
