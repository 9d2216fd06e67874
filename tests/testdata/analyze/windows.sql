-- formats: tsv markdown
-- SPEC 3 and 2.4: EXPLAIN ANALYZE of windows (the shared case window-hop-late:
-- HOP of 10 s every 5 s, watermark = ts). By SPEC 2.4 on clicks.csv, a row
-- enters its windows, then the watermark it set fires the windows it passed:
-- u1@1000 opens [-5000,5000) and [0,10000); u2@6000 opens [5000,15000) (3
-- open: the most), then fires [-5000,5000); u3@12000 opens [10000,20000) and
-- fires [0,10000); u4@7000 joins [5000,15000); u5@4000 is late (its windows
-- fired); u6@15000 opens [15000,25000), fires [5000,15000); u7@20000 opens
-- [20000,30000), fires [10000,20000); the end fires the last two. So: 7 rows
-- taken, 1 late, at most 3 windows of one group each, 6 rows emitted, final
-- watermark 20000 (the shared case's expected outputs). Then a GROUP BY
-- without a window on a side branch, which takes every row (first match):
-- one window, a group per user (7), emitted at the end; main gets none.
-- Last, a plain side branch before an aggregating main query: the side
-- takes u1@1000 and u5@4000 (ts < 5000), the main query's global COUNT(*)
-- the other 5 rows and emits 1: its aggregate line counts those (in 5, out
-- 1), not the side rows that pass through the operator.
CREATE STREAM clicks (uid VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts)
  WITH ('connector' = 'file', 'path' = 'clicks.csv', 'format' = 'csv');
EXPLAIN ANALYZE SELECT window_start, window_end, COUNT(*) AS clicks, LISTAGG(uid) AS users
  FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
  LATE INTO SIDE 'late-clicks';
SELECT uid, COUNT(*) AS n INTO SIDE 'per-user' FROM clicks GROUP BY uid;
EXPLAIN ANALYZE SELECT uid FROM clicks WHERE ts > 10000;
SELECT uid INTO SIDE 'early' FROM clicks WHERE ts < 5000;
EXPLAIN ANALYZE SELECT COUNT(*) AS n FROM clicks;
