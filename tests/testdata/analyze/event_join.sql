-- formats: tsv json
-- SPEC 3 and 2.2: EXPLAIN ANALYZE of an event-time join (build side r a socket
-- stream, served with event_join.socket by the test): the probe rows held at most (the
-- file's 5 rows come in one batch and are held before any is released), the
-- build rows counted (b@500 is late: 4), the distinct keys (a, x, c, z), the
-- rows through (a@150, c@3500) and both streams' final watermarks (l: 3500;
-- r: 9000 - 1 s = 8000).
CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='{{PORT}}');
EXPLAIN ANALYZE SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;
