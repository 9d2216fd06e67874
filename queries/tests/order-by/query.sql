-- ORDER BY at the end of a query over a bounded input (SPEC 2.9), and a named
-- WINDOW. Run it with: streamql test queries/tests
-- The rows are sorted when the input ends, NULLs first ascending and last
-- descending, as Flink sorts; `streamql export --flink` writes the ORDER BYs as
-- they are (every input is bounded: Flink's batch mode sorts any keys) and the
-- named window inline at each OVER (bench/flink-export checks both on Flink).
CREATE STREAM items (
  k  VARCHAR,
  n  BIGINT,
  ts BIGINT,                                  -- event time, epoch ms
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'file', 'path' = 'items.json', 'format' = 'json', 'errors' = 'fail');

-- the three smallest n, a NULL first; ties on n broken by k
SELECT k, n FROM items ORDER BY n, k LIMIT 3;

-- the two largest doubled n by their alias, NULLs last
SELECT k, n * 2 AS d FROM items ORDER BY d DESC, k LIMIT 2;

-- every row in event-time order, with its running sum per k
SELECT k, n, ts, SUM(n) OVER w AS running, COUNT(*) OVER w AS seen
  FROM items
  WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

SELECT k, ts FROM items ORDER BY ts DESC;
