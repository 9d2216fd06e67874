-- Operators of SPEC 2.9 in side branches (SPEC 2.1): each branch takes its
-- rows by first match (its WHERE over the stream's rows: for a Top-N, the
-- ranking subquery's WHERE), then its operator runs over the rows it took.
-- 'cold-avg': each cold reading with the average of its device's last three
-- cold readings (an OVER aggregation in event-time order; the reading at
-- 16:01:02, behind the watermark, goes to 'late'); 'hot-top2': the two
-- hottest of each device's hot readings (a Top-N, the final result of the
-- bounded file); main: the readings neither branch took. Run it with:
--   streamql test queries/tests          (or: streamql -f query.sql in this folder)
-- `streamql export --flink query.sql` writes each branch as an INSERT over a
-- view of the rows it takes (Flink's StatementSet).
CREATE STREAM readings (
  dev  VARCHAR,
  ts   TIMESTAMP(3),
  temp DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'file', 'path' = 'readings.csv', 'format' = 'csv');

SELECT dev, ts, temp,
       AVG(temp) OVER (PARTITION BY dev ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS avg3
  INTO SIDE 'cold-avg'
  FROM readings WHERE temp < 10;

SELECT dev, temp INTO SIDE 'hot-top2'
  FROM (SELECT dev, temp, ROW_NUMBER() OVER (PARTITION BY dev ORDER BY temp DESC) AS rn
          FROM readings WHERE temp > 30)
  WHERE rn <= 2;

SELECT dev, ts, temp FROM readings;
