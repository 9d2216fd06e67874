-- A join of two Kafka streams in a consumer group (SPEC 2.5, 2.7): EXPLAIN names the topics that must be co-partitioned,
-- and, for a regular join, what a crash costs: re-reading each partition from its oldest row in state (the first row
-- read without 'table.exec.state.ttl'; with one, at most the TTL below the join's watermark)
CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='kafka', 'topic'='orders', 'properties.bootstrap.servers'='127.0.0.1:9', 'properties.group.id'='g', 'format'='csv');
CREATE STREAM p (pid BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='kafka', 'topic'='payments', 'properties.bootstrap.servers'='127.0.0.1:9', 'properties.group.id'='g', 'format'='csv');
EXPLAIN SELECT o.id, p.pid FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND;
EXPLAIN SELECT o.id, p.pid FROM o JOIN p ON o.k = p.k;
SET 'table.exec.state.ttl' = '1 h';
EXPLAIN SELECT o.id, p.pid FROM o JOIN p ON o.k = p.k;
