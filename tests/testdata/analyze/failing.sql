-- formats: tsv
-- SPEC 3 and SPEC 1: a failing job still prints its error as a job does
-- (exit 1), after the plan with what happened until the failure: with
-- 'errors'='fail' the rows before the malformed third row were routed (d1 to
-- main, d2 to 'hot'), and the malformed row is counted.
CREATE STREAM strict (device VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='readings.csv', 'errors'='fail');
SELECT device INTO SIDE 'hot' FROM strict WHERE temperature > 70;
EXPLAIN ANALYZE SELECT device FROM strict;
