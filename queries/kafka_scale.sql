-- test: skip (needs a Kafka broker: see the README, "Scale out")
-- The split of the topic 'sensors-scale', run by as many processes as you like: they join
-- the consumer group 'scale-demo' and share its partitions (SPEC 2.5). Rows above 70 degrees
-- go to the topic 'scale-high', the others to 'scale-rest', exactly once: each process
-- writes its outputs and its offsets in one Kafka transaction. A process killed with -9
-- loses its partitions to the others after 'properties.session.timeout.ms'; its open
-- transaction is aborted by the broker after 'properties.transaction.timeout.ms', and the
-- new owners go on from the offsets of its last committed transaction. Stop with Ctrl-C.
CREATE STREAM sensors_scale (id BIGINT, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'sensors-scale', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'csv', 'properties.group.id' = 'scale-demo', 'properties.session.timeout.ms' = '6000');
CREATE STREAM scale_high (id BIGINT, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'scale-high', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'scale-demo',
        'properties.transaction.timeout.ms' = '10000');
CREATE STREAM scale_rest (id BIGINT, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 'scale-rest', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'scale-demo',
        'properties.transaction.timeout.ms' = '10000');
SELECT id, temperature INTO STREAM scale_high FROM sensors_scale WHERE temperature > 70;
INSERT INTO scale_rest SELECT id, temperature FROM sensors_scale;
