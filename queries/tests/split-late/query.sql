-- An example test case for `streamql test` (SPEC 4 "Tests of a user's own
-- pipelines"); copy this folder and change it. Run it with:
--   streamql test queries/tests
-- A case is this query.sql, its inputs (readings.csv) and expected/: main.csv
-- (stdout), one <side>.csv per side output, errors.csv (compared on stream,
-- position, raw), and optionally exit (the status, absent 0) and stderr (lines
-- that must appear). It runs as `streamql --format csv --side-dir TMP -f query.sql`
-- in this folder. `streamql test --update` rewrites expected/ of failing cases.
--
-- The job splits a sensor stream in one scan: rows later than the watermark go
-- to 'late' (declared first, so a late hot row is late, not high), hot rows to
-- 'high', the rest to the main output; the malformed row (ts 'abc') goes to the
-- errors side output and does not move the watermark.
CREATE STREAM sensors (
  device      VARCHAR,
  ts          BIGINT,                                    -- event time, epoch ms
  temperature DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'file', 'path' = 'readings.csv', 'format' = 'csv');

SELECT device, ts INTO SIDE 'late' FROM sensors WHERE ts < CURRENT_WATERMARK(ts);
SELECT device, temperature INTO SIDE 'high' FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
