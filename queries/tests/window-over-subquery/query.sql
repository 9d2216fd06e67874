-- A window TVF whose table argument is a subquery (Flink's forms: TUMBLE(TABLE
-- (SELECT …), …) and TUMBLE((SELECT …), …); issue 23 item 4): the warm
-- readings of queries/tests/window-over-view, filtered in the TVF's own
-- argument instead of a view, counted per device and minute; and a HOP over
-- the readings in Fahrenheit. The subquery keeps the stream's event time and
-- watermark through its filter and projection (SPEC 2.6), so a warm reading
-- behind the watermark goes to the window's late output as the subquery's row
-- (the second query's to its own, 'late-f': its rows have other columns).
CREATE STREAM readings (
  dev  VARCHAR,
  ts   TIMESTAMP(3),
  temp DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '10' SECOND
) WITH ('connector' = 'file', 'path' = 'readings.csv', 'format' = 'csv');

SELECT window_start, window_end, dev, COUNT(*) AS n, MAX(temp) AS max_t
  FROM TABLE(TUMBLE(TABLE (SELECT dev, ts, temp FROM readings WHERE temp >= 10), DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, dev;

SELECT window_start, window_end, MAX(f) AS max_f
  FROM TABLE(HOP((SELECT ts, temp * 9 / 5 + 32 AS f FROM readings), DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end
  LATE INTO SIDE 'late-f';
