-- SPEC 2.2: an unbounded build side joins by event time; EXPLAIN warns that
-- held rows grow while the build watermark does not advance (SPEC 1: state.max-bytes)
CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='l.csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='9999');
EXPLAIN SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;
EXPLAIN SELECT k FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.ts > 0);
