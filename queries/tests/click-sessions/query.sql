-- Session windows of user clicks with a 5-minute gap (issue 11 item 5; SPEC 2.4).
-- Run it with:  streamql test queries/tests
-- Per user, a click opens [t, t + 5 min); sessions that overlap or touch merge,
-- also when a click arrives out of order and bridges two (u1's 'help' joins the
-- session of 'cart'). A session fires when the watermark (ts - 10 s) reaches its
-- end. u2's click at 16:01:40 arrives after its session fired and touches no open
-- one: it is late and goes to the default 'late' output (shown once a row
-- reaches it: late.csv here, "late> " lines on stderr in csv).
CREATE STREAM clicks (
  uid  VARCHAR,
  ts   TIMESTAMP,
  page VARCHAR,
  WATERMARK FOR ts AS ts - INTERVAL '10' SECOND
) WITH ('connector' = 'file', 'path' = 'clicks.csv', 'format' = 'csv');

SELECT uid, window_start, window_end, COUNT(*) AS clicks, LISTAGG(page, ' > ') AS pages,
       FIRST_VALUE(page) AS entry
  FROM TABLE(SESSION(TABLE clicks PARTITION BY uid, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
  GROUP BY uid, window_start, window_end;
