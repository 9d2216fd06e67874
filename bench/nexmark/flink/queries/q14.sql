-- Flink's reference SQL of Nexmark q14 (nexmark-flink queries/q14.sql), its SELECT
-- without the blackhole sink table. Adapted: 0.908 * price in DOUBLE, as in q1.
CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar';
SELECT 
    auction,
    bidder,
    CAST(0.908 AS DOUBLE) * price as price,
    CASE
        WHEN HOUR(`dateTime`) >= 8 AND HOUR(`dateTime`) <= 18 THEN 'dayTime'
        WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    `dateTime`,
    extra,
    count_char(extra, 'c') AS c_counts
FROM bid
WHERE CAST(0.908 AS DOUBLE) * price > 1000000 AND CAST(0.908 AS DOUBLE) * price < 50000000;
