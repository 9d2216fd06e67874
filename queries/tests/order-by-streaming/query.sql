-- ORDER BY at the end of a query in streaming mode (SPEC 2.9), over a bounded
-- input. Run it with: streamql test queries/tests
-- ORDER BY the event time sorts when the input ends; ORDER BY … LIMIT is a
-- Top-N over the whole stream, updating (op first); another ORDER BY sorts when
-- the input ends. `streamql export --flink` writes the first on Flink's time
-- attribute, the second as Flink's Top-N, and leaves the third's ORDER BY out
-- (Flink's streaming mode sorts only on a time attribute): differences its
-- header lists, which bench/flink-export checks on Flink.
SET 'execution.runtime-mode' = 'streaming';

CREATE STREAM items (
  k  VARCHAR,
  n  BIGINT,
  ts BIGINT,                                  -- event time, epoch ms
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'file', 'path' = 'items.json', 'format' = 'json', 'errors' = 'fail');

SELECT k, n, ts FROM items ORDER BY ts, k;

-- (the Top-N reads the rows without event time: its changelog follows their
-- arrival order, which a watermarked input's partitions may change)
CREATE STREAM arrivals (k VARCHAR, n BIGINT, ts BIGINT)
  WITH ('connector' = 'file', 'path' = 'items.json', 'format' = 'json', 'errors' = 'fail');

SELECT k, n FROM arrivals ORDER BY n DESC, k LIMIT 2;

SELECT n, k FROM items ORDER BY n, k;
