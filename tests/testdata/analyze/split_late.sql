-- formats: tsv csv json plain markdown table
-- SPEC 3, EXPLAIN ANALYZE of the split job with a late branch and a malformed
-- row (queries/tests/split-late): rows each branch took (late 2, high 2, main
-- 3: the case's expected outputs), 1 malformed row, the final watermark 4000
-- (BIGINT: a number); the pending branches are used up (SHOW SIDES is empty).
CREATE STREAM sensors (
  device      VARCHAR,
  ts          BIGINT,
  temperature DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'file', 'path' = 'readings.csv', 'format' = 'csv');
SELECT device, ts INTO SIDE 'late' FROM sensors WHERE ts < CURRENT_WATERMARK(ts);
SELECT device, temperature INTO SIDE 'high' FROM sensors WHERE temperature > 70;
EXPLAIN ANALYZE SELECT * FROM sensors;
SHOW SIDES;
