-- A Top-N and a deduplication whose ranking SELECT reads a relation, not a
-- stream (SPEC 2.6, 2.9): a nested subquery, a view and a WITH name; the
-- export expands the ranking's * from the relation's columns.
CREATE STREAM sensors (dev VARCHAR, temp DOUBLE, et TIMESTAMP(3), WATERMARK FOR et AS et - INTERVAL '5' SECOND)
  WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY dev ORDER BY temp DESC) AS rn
  FROM (SELECT * FROM (SELECT dev, temp FROM sensors WHERE temp > 0) AS a) AS b) WHERE rn <= 2;
CREATE VIEW warm AS SELECT dev, temp, et FROM sensors WHERE temp > 20;
SELECT dev, temp FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY dev ORDER BY et DESC) AS rn FROM warm) WHERE rn = 1;
WITH c AS (SELECT dev, temp FROM sensors)
SELECT * FROM (SELECT *, RANK() OVER (PARTITION BY dev ORDER BY temp) AS r FROM c) WHERE r <= 3;
