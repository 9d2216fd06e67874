-- A window over a view (SPEC 2.6): the view keeps the warm readings, and a
-- 1-minute TUMBLE window counts them per device. The view passes the stream's
-- watermark through its filter (a reading the WHERE drops still moves it), so a
-- warm reading behind the watermark goes to the window's late output as it
-- would over the stream, whole, as the view's row. Side branch: the cold
-- readings, read from the same stream. Run it with:
--   streamql test queries/tests          (or: streamql -f query.sql in this folder)
-- `streamql export --flink query.sql` writes the view as a temporary view that
-- Flink's TUMBLE reads (TABLE warm).
CREATE STREAM readings (
  dev  VARCHAR,
  ts   TIMESTAMP(3),
  temp DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '10' SECOND
) WITH ('connector' = 'file', 'path' = 'readings.csv', 'format' = 'csv');

CREATE VIEW warm AS SELECT dev, ts, temp FROM readings WHERE temp >= 10;

SELECT dev, temp FROM readings WHERE temp < 10 INTO SIDE 'cold';

SELECT window_start, window_end, dev, COUNT(*) AS n, MAX(temp) AS max_t
  FROM TABLE(TUMBLE(TABLE warm, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, dev;
