-- SPEC 2.5 (issue 13): a Kafka source in a consumer group: EXPLAIN says the processes share
-- its partitions, that aggregates need the topic partitioned by their grouping key, that a
-- join's build side is read whole by every process, and warns when a Kafka sink's
-- 'key.fields' is not the grouping key. (EXPLAIN plans only: no broker is needed.)
CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector'='kafka', 'topic'='sensors', 'properties.bootstrap.servers'='127.0.0.1:9092', 'format'='csv',
        'properties.group.id'='g1');
CREATE STREAM devices (deviceNo VARCHAR) WITH ('connector'='file', 'path'='devices.csv');
CREATE STREAM by_device (deviceNo VARCHAR, n BIGINT)
  WITH ('connector'='kafka', 'topic'='by-device', 'properties.bootstrap.servers'='127.0.0.1:9092', 'format'='json',
        'key.fields'='deviceNo');
CREATE STREAM by_device_unkeyed (deviceNo VARCHAR, n BIGINT)
  WITH ('connector'='kafka', 'topic'='by-device2', 'properties.bootstrap.servers'='127.0.0.1:9092', 'format'='json');
SELECT deviceNo, COUNT(*) AS n INTO STREAM by_device_unkeyed
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, deviceNo;
EXPLAIN INSERT INTO by_device SELECT deviceNo, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, deviceNo;
EXPLAIN SELECT s.deviceNo, s.temperature FROM sensors s SEMI JOIN devices d ON s.deviceNo = d.deviceNo;
EXPLAIN SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
DROP SIDE 'by_device_unkeyed';
