-- A join of two Kafka streams in a consumer group (SPEC 2.5, 2.7): EXPLAIN names the topics that must be co-partitioned
CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='kafka', 'topic'='orders', 'properties.bootstrap.servers'='127.0.0.1:9', 'properties.group.id'='g', 'format'='csv');
CREATE STREAM p (pid BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='kafka', 'topic'='payments', 'properties.bootstrap.servers'='127.0.0.1:9', 'properties.group.id'='g', 'format'='csv');
EXPLAIN SELECT o.id, p.pid FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND;
