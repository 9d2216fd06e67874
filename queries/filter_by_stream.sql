-- Filter one stream by the keys of another: Flink's connect + CoFlatMap example,
-- whose answer there depends on which stream's elements arrive first. Here it does
-- not (SPEC 2.2): the bounded stream2 is read whole first (the build side), then
-- stream1 streams through (the probe side). Run it with:
--   go run ./cmd/streamql queries/filter_by_stream.sql
CREATE STREAM stream1 (k VARCHAR, v BIGINT) WITH ('connector' = 'file', 'path' = 'stream1.csv');
CREATE STREAM stream2 (k VARCHAR)           WITH ('connector' = 'file', 'path' = 'stream2.csv');

-- rows of stream1 whose key is in stream2 (A and C), in stream1's order
SELECT s1.* FROM stream1 s1 SEMI JOIN stream2 s2 ON s1.k = s2.k;

-- the same as a subquery, and the complement (B and D)
SELECT k, v FROM stream1 WHERE k IN (SELECT k FROM stream2);
SELECT s1.* FROM stream1 s1 ANTI JOIN stream2 s2 ON s1.k = s2.k;

EXPLAIN SELECT s1.* FROM stream1 s1 SEMI JOIN stream2 s2 ON s1.k = s2.k;
