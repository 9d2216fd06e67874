-- OVER aggregation with LISTAGG and COUNT(DISTINCT x) (SPEC 2.9: the
-- aggregates of 2.4, as Flink's OVER takes them), over a RANGE frame of
-- the last second written in milliseconds: each click gets the pages its
-- user visited in the second up to it (its own time included), and how
-- many different pages that is. u1's click at 10:00:01.700 sees the pages
-- from 10:00:00.700 on: home (0.900) and pay; 10:00:00.900 sees all three
-- of u1's first clicks, home twice. (Flink's validator refuses DISTINCT in
-- an OVER aggregate; `streamql export --flink` lists it. Its LISTAGG OVER
-- gives these paths.)
CREATE STREAM clicks (uid VARCHAR, page VARCHAR, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'file', 'path' = 'clicks.csv', 'format' = 'csv');

SELECT uid, page, ts,
       LISTAGG(page, ' > ') OVER w AS path,
       COUNT(DISTINCT page) OVER w AS pages
  FROM clicks
  WINDOW w AS (PARTITION BY uid ORDER BY ts RANGE BETWEEN INTERVAL '1000' MILLISECOND PRECEDING AND CURRENT ROW);
