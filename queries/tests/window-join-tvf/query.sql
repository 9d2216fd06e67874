-- A window join of two window TVFs (SPEC 2.7; Flink's documented window
-- join, its FULL JOIN example with its rows): each side's rows are windowed
-- by a 5-minute TUMBLE and joined with the other side's rows of the same
-- window, when both watermarks pass the window's end. The output is
-- append-only, also for FULL JOIN: a row without a partner in its window is
-- padded once, when the window fires (L1, R2, L2, R4, and L4 at the end of
-- the input). The subqueries keep the stream's watermark, and window_time is
-- their event time (as in Flink), so a row that comes after its window
-- fired (L5, 12:04, after L4 moved the watermark to 12:07) is late: it goes,
-- as the subquery gives it (window columns included), to 'late-L'. The
-- right rows come in order, so their watermark needs no delay.
CREATE STREAM LeftTable (
  row_time TIMESTAMP(3),
  num      BIGINT,
  id       VARCHAR,
  WATERMARK FOR row_time AS row_time - INTERVAL '5' MINUTE
) WITH ('connector' = 'file', 'path' = 'left.csv', 'format' = 'csv');

CREATE STREAM RightTable (
  row_time TIMESTAMP(3),
  num      BIGINT,
  id       VARCHAR,
  WATERMARK FOR row_time AS row_time
) WITH ('connector' = 'file', 'path' = 'right.csv', 'format' = 'csv');

SELECT L.num AS L_Num, L.id AS L_Id, R.num AS R_Num, R.id AS R_Id,
       COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) L
  FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))) R
    ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
