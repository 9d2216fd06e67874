-- Flink's reference SQL of Nexmark q4 (nexmark-flink queries/q4.sql), its SELECT
-- without the blackhole sink table. Adapted: AVG of a DOUBLE: SPEC 2.4's AVG is DOUBLE,
-- Flink's AVG of BIGINT a truncated BIGINT.
SELECT
    Q.category,
    AVG(CAST(Q.final AS DOUBLE))
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category;
